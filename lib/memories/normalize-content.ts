/** The form two memories must share to be "identical after normalization". */
export function contentKey(content: string): string {
  return content
    .normalize("NFKC")
    .toLowerCase()
    .replace(/\s+/g, " ")
    .replace(/^[\s"'“”‘’`]+|[\s"'“”‘’`.!?。！？…]+$/g, "")
    .trim();
}
