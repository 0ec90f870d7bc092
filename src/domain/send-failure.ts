// Why a queued message could not be sent, in the sender's terms: a permanent failure fails the
// message at once; a transient one is retried with backoff until the retry budget is spent.
// The engine and the media pipeline throw these; the sender decides what happens next.

/** Machine-readable reasons, reported as `errorCode` in the DeliveryCallback. */
export type SendErrorCode =
  /** The payload is not the media the endpoint needs, or cannot be decoded. */
  | 'MEDIA_INVALID'
  /** Over a size, pixel or duration limit. */
  | 'MEDIA_TOO_LARGE'
  /** The media URL could not be fetched (HTTP error, TLS, refused address). */
  | 'MEDIA_DOWNLOAD_FAILED'
  /** The network's media host did not take the upload. */
  | 'MEDIA_UPLOAD_FAILED'
  /** A conversion (ffmpeg, image decoder) ran out of time or memory. */
  | 'MEDIA_CONVERSION_FAILED'
  /** The number is not on WhatsApp. */
  | 'NOT_ON_WHATSAPP'
  /** The network refused the message. */
  | 'REFUSED'
  /** No answer in time. */
  | 'TIMEOUT'
  /** Anything else (a bug, an unreadable queued row). */
  | 'UNKNOWN'
  /** Not a failure: the message was deleted from the queue before it was sent (DELETE …/messages). */
  | 'CANCELLED';

export class SendFailure extends Error {
  constructor(
    /** True: retrying cannot help. False: it may (the retry budget decides). */
    readonly permanent: boolean,
    readonly code: SendErrorCode,
    /** Shown to the client in the DeliveryCallback's `error`. */
    readonly reason: string,
    options?: { cause?: unknown },
  ) {
    super(reason, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'SendFailure';
  }
}

export const sendFailures = {
  invalidMedia: (reason: string, cause?: unknown) => new SendFailure(true, 'MEDIA_INVALID', reason, { cause }),
  tooLarge: (reason: string) => new SendFailure(true, 'MEDIA_TOO_LARGE', reason),
  downloadFailed: (reason: string, permanent: boolean, cause?: unknown) => new SendFailure(permanent, 'MEDIA_DOWNLOAD_FAILED', reason, { cause }),
  uploadFailed: (reason: string, cause?: unknown) => new SendFailure(false, 'MEDIA_UPLOAD_FAILED', reason, { cause }),
  conversionFailed: (reason: string, permanent: boolean, cause?: unknown) => new SendFailure(permanent, 'MEDIA_CONVERSION_FAILED', reason, { cause }),
} as const;
