// Valid request bodies for the send routes, shared by the contract tests and the fuzzer.

export const PHONE = '5511999990000';
export const GROUP = '120363012345678901-group';

export const SEND_SAMPLES: Readonly<Record<string, Record<string, unknown>>> = {
  'send-text': { phone: PHONE, message: 'Olá!' },
  'send-image': { phone: PHONE, image: 'https://hooks.example.com/cat.png', caption: 'a cat' },
  // A real 1×1 PNG: image data URIs are decoded up to their header before they are queued.
  'send-sticker': {
    phone: PHONE,
    sticker: 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAACXBIWXMAAAPoAAAD6AG1e1JrAAAADElEQVR4nGP4//8/AAX+Av4N70a4AAAAAElFTkSuQmCC',
  },
  // Media sends (URLs are fetched and converted at send time).
  'send-audio': { phone: PHONE, audio: 'https://hooks.example.com/hello.mp3', waveform: true },
  'send-video': { phone: PHONE, video: 'https://hooks.example.com/clip.mp4', caption: 'a clip' },
  'send-ptv': { phone: PHONE, video: 'https://hooks.example.com/note.mp4' },
  'send-gif': { phone: PHONE, gif: 'https://hooks.example.com/loop.mp4' },
  'send-document/pdf': { phone: PHONE, document: 'https://hooks.example.com/invoice.pdf', fileName: 'invoice.pdf' },
  'send-location': { phone: PHONE, title: 'Praça', address: 'Av. Paulista, 1000', latitude: '-23.5614', longitude: '-46.6559' },
  'send-option-list': {
    phone: PHONE,
    message: 'Pick one',
    optionList: {
      title: 'Menu',
      buttonLabel: 'Open',
      options: [
        { id: 'a', title: 'Pizza', description: 'with cheese' },
        { title: 'Pasta' },
      ],
    },
  },
  'send-button-list': {
    phone: PHONE,
    message: 'Yes or no?',
    buttonList: { buttons: [{ id: 'y', label: 'Yes' }, { label: 'No' }], image: 'https://hooks.example.com/header.png' },
  },
};

/** send-kinds: valid bodies for the routes whose `messageId` names a target (no reply/mention fields). */
export const SEND_KINDS_SAMPLES: Readonly<Record<string, Record<string, unknown>>> = {
  'send-link': { phone: PHONE, message: 'Visit https://z-api.io', linkUrl: 'https://z-api.io', title: 'Z-API', linkDescription: 'WhatsApp API', linkType: 'LARGE' },
  'send-contact': { phone: PHONE, contactName: 'Ana', contactPhone: '+55 44 9839-8733' },
  'send-contacts': { phone: PHONE, contacts: [{ name: 'Bia', phones: ['5544999999999'] }, { name: 'Caio', phones: ['5544977777777'], businessDescription: 'Bakery' }] },
  'send-poll': { phone: GROUP, message: 'Best API?', poll: [{ name: 'Z-API' }, { name: 'Others' }], pollMaxOptions: 1 },
  'send-reaction': { phone: PHONE, reaction: '👍', messageId: '3EB0AAAAAAAAAAAAAAAAAA' },
  'send-remove-reaction': { phone: PHONE, messageId: '3EB0AAAAAAAAAAAAAAAAAA' },
  'pin-message': { phone: PHONE, messageId: '3EB0AAAAAAAAAAAAAAAAAA', messageAction: 'pin', pinMessageDuration: '30_days' },
  'send-button-actions': {
    phone: PHONE,
    message: 'Help?',
    buttonActions: [
      { type: 'CALL', phone: '554498398733', label: 'Call' },
      { type: 'URL', url: 'https://z-api.io', label: 'Site' },
      { id: 'r', type: 'REPLY', label: 'Agent' },
    ],
  },
  'send-button-otp': { phone: PHONE, message: 'Your code', code: '123456' },
  'send-button-pix': { phone: PHONE, pixKey: 'pay@acme.com', type: 'EMAIL' },
  'send-carousel': {
    phone: PHONE,
    message: 'Plans',
    carousel: [{ text: 'Basic', image: 'https://hooks.example.com/b.png', buttons: [{ id: 'b', type: 'REPLY', label: 'Choose' }] }],
  },
};
