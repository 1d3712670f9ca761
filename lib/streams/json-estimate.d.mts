/** Types of json-estimate.mjs. */
export declare function estimate(data: Uint8Array): { bytes: number; containers: number; values: number; deepest: number };
