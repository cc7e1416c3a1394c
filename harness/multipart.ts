/**
 * multipart/form-data bodies written byte for byte, so a scenario controls exactly what is sent (a
 * filename such as `../x.js` goes out as it is, where a FormData implementation might rewrite it).
 */
export interface MultipartFile {
  /** The form field name of the part. */
  readonly field?: string;
  /** The part's filename, sent verbatim (quotes and line breaks are escaped as browsers do). */
  readonly filename: string;
  readonly bytes: Uint8Array | string;
  readonly contentType?: string;
}

export interface MultipartBody {
  readonly body: Uint8Array<ArrayBuffer>;
  readonly contentType: string;
}

function quoted(value: string): string {
  return `"${value.replace(/"/g, "%22").replace(/\r/g, "%0D").replace(/\n/g, "%0A")}"`;
}

/** Encodes text fields (in order, repeats allowed) and file parts into one multipart/form-data body. */
export function encodeMultipart(
  fields: ReadonlyArray<readonly [string, string]>,
  files: readonly MultipartFile[],
  boundary = "svc-hub-boundary-7e3f9a",
): MultipartBody {
  const encoder = new TextEncoder();
  const parts: Uint8Array[] = [];
  for (const [name, value] of fields) {
    parts.push(
      encoder.encode(`--${boundary}\r\nContent-Disposition: form-data; name=${quoted(name)}\r\n\r\n${value}\r\n`),
    );
  }
  for (const file of files) {
    const head = `--${boundary}\r\nContent-Disposition: form-data; name=${quoted(file.field ?? "file")}; filename=${quoted(file.filename)}\r\nContent-Type: ${file.contentType ?? "application/octet-stream"}\r\n\r\n`;
    parts.push(
      encoder.encode(head),
      typeof file.bytes === "string" ? encoder.encode(file.bytes) : file.bytes,
      encoder.encode("\r\n"),
    );
  }
  parts.push(encoder.encode(`--${boundary}--\r\n`));
  const body = new Uint8Array(parts.reduce((total, part) => total + part.byteLength, 0));
  let offset = 0;
  for (const part of parts) {
    body.set(part, offset);
    offset += part.byteLength;
  }
  return { body, contentType: `multipart/form-data; boundary=${boundary}` };
}
