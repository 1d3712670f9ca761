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
export declare function splitPieces(s: string, encodingName: "o200k_base" | "cl100k_base"): string[];
export declare function regexPieces(s: string, encodingName: "o200k_base" | "cl100k_base"): string[];
export declare function mayHaveLongRun(text: string): boolean;
export declare function longRunByRegex(text: string): boolean;
export declare function countAloneAndSpaced(
  enc: { encode_ordinary(text: string): ArrayLike<number> },
  text: string,
  encodingName: "o200k_base" | "cl100k_base",
): { alone: number; spaced: number; approximate: boolean };
/** The piece table's hash of s[start, end) (exported for the test that makes two pieces collide). */
export declare function pieceHash(s: string, start: number, end: number): number;
