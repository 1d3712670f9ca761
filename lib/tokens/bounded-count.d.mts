export declare const MAX_PIECE_BYTES: number;
export declare function countBounded(
  enc: { encode_ordinary(text: string): ArrayLike<number> },
  text: string,
  encodingName: "o200k_base" | "cl100k_base",
): { tokens: number; approximate: boolean };
export declare function hasLongPiece(text: string, encodingName: "o200k_base" | "cl100k_base"): boolean;
export declare function estimateTokens(text: string): number;
export declare function scanPieces(
  enc: { encode_ordinary(text: string): ArrayLike<number> },
  text: string,
  encodingName: "o200k_base" | "cl100k_base",
  from?: number,
  to?: number,
  stopAt?: Uint8Array | null,
): { starts: number[]; before: number[]; approximate: boolean; stoppedAt: number };
