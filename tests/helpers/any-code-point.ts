import fc from "fast-check";

// Strings of any code point but a surrogate half: the characters of fc.string({ unit: "binary" }),
// drawn the same way (the same biased index into U+0000-U+D7FF then U+E000-U+10FFFF, as its
// mapToConstant draws them), without the property names ("__proto__", "constructor"...) it mixes
// in as whole slices. Finding those slices maps each of the 1 112 064 code points back to its
// index, once per process: about 1 CPU-second, most of what a property test of 50 strings cost
// (docs/benchmarks.md section 75). The texts these tests check are not objects' keys.
const CODE_POINTS = 0x110000 - 0x800;

/** One code point, as fc.string({ unit: "binary" }) draws its characters. */
export const anyCodePoint = fc.nat({ max: CODE_POINTS - 1 }).map((i) => String.fromCodePoint(i < 0xd800 ? i : i + 0x800));

/** fc.string({ unit: "binary", ...constraints }) without the property-name slices. */
export function anyCodePointString(constraints: { minLength?: number; maxLength?: number } = {}) {
  return fc.string({ ...constraints, unit: anyCodePoint });
}
