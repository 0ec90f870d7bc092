// Valid request bodies for the send routes, shared by the contract tests and the fuzzer.

export const PHONE = '5511999990000';
export const GROUP = '120363012345678901-group';

export const SEND_SAMPLES: Readonly<Record<string, Record<string, unknown>>> = {
  'send-text': { phone: PHONE, message: 'Olá!' },
  'send-image': { phone: PHONE, image: 'https://hooks.example.com/cat.png', caption: 'a cat' },
  'send-sticker': { phone: PHONE, sticker: 'data:image/png;base64,iVBORw0KGgo=' },
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
