/**
 * multipart/form-data bodies for the scenarios, made with the platform's FormData: Request and fetch write the
 * body, its boundary and its Content-Type, as a browser's form would. A filename goes out as given (`../x.js`
 * stays `../x.js`, so the refusals of member names are checked); quotes and line breaks are escaped as browsers
 * escape them (%22, %0D, %0A).
 */
export interface MultipartFile {
  /** The form field name of the part (default `file`). */
  readonly field?: string;
  /** The part's filename. */
  readonly filename: string;
  readonly bytes: Uint8Array<ArrayBuffer> | string;
  /** The part's Content-Type (default application/octet-stream). */
  readonly contentType?: string;
}

/** Text fields (in order, repeats allowed) and then file parts, as one form to send as a Request's body. */
export function formDataOf(
  fields: ReadonlyArray<readonly [string, string]>,
  files: readonly MultipartFile[],
): FormData {
  const form = new FormData();
  for (const [name, value] of fields) form.append(name, value);
  for (const file of files)
    form.append(
      file.field ?? "file",
      new Blob([file.bytes], { type: file.contentType ?? "application/octet-stream" }),
      file.filename,
    );
  return form;
}
