// The error the admin API answers with: a status and a message. A leaf, because handlers and contact
// actions throw it as well as the admin modules, and none of them should import another to reach it.

/** An error that carries the HTTP status the admin API should answer with. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}
