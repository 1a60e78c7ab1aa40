// The shape of a request spec's `form` (encoded by form-body.ts).

/** A file field of a multipart `form`. */
export interface FormFile {
  /** The file's bytes (a string is sent as UTF-8). */
  content: Buffer | Uint8Array | string;
  /** The filename the part names. Default `'blob'`. */
  filename?: string;
  /** The part's content type. Default `application/octet-stream`. */
  contentType?: string;
}

/** `RequestSpec.form`: field names to values (an array repeats the field). */
export type FormBody = Record<string, FormValue | FormValue[]> & { multipart?: boolean };
/** One value of a form field. */
export type FormValue = string | number | boolean | Buffer | FormFile;
