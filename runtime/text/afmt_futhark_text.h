/* INTERNAL HEADER: for generated code and the runtime only, not an API (it
 * changes with AFMT_RUNTIME_ABI); programs include <afmt/afmt.h> and <afmt/<format>.h>. */
/* afmt runtime: Futhark *text* values (the textual half of a futhark
 * stream, docs/FORMATS.md#futhark).
 *
 * A futhark file or stream is one or more values separated by whitespace;
 * a value that does not start with 'b' is text.  Its grammar (nested,
 * regular arrays of literals) cannot be said in the spec language, so the
 * spec names this module.  The tokenizer is re2c
 * (runtime/text/afmt_futhark_text.re -> runtime/text/afmt_futhark_text.c).
 *
 * No allocation, no global state, nothing from libc but string.h; the work
 * is linear in the value's length (each literal costs at most a bounded
 * amount of big-integer arithmetic), and nesting is walked iteratively, with
 * the depth bounded by the rank limit.
 *
 * Grammar accepted (the reference is futhark-data, the parser of
 * `futhark dataset`/`futhark test`; where Futhark's readers disagree, the
 * form is rejected with a message saying why):
 *
 *   value    := literal | array | empty
 *   array    := '[' value (',' value)* ']'     regular, one element type;
 *                                              no trailing ',', no bare []
 *   empty    := 'empty(' ('[' dim ']')+ type ')'   no whitespace inside,
 *                                              at least one dim is 0,
 *                                              dim = 0 | [1-9][0-9]* <= 2^63-1
 *   literal  := int | float | 'true' | 'false' | special
 *   int      := sign? (dec | '0x' hex | '0b' bin) isuffix?   (default i32)
 *   float    := sign? dec ('.' dec)? (exp)? fsuffix?         (default f64)
 *               with '.' or an exponent or an fsuffix
 *   special  := 'f16.nan' | 'f32.nan' | 'f64.nan' | '-'? ('f16.inf' |
 *               'f32.inf' | 'f64.inf')
 *   sign     := '-' | '+'     ('+' as futhark-data and the C runtime read it)
 *   dec      := [0-9][0-9_]*  (underscores after the first digit, as
 *               futhark-data reads them: 1_000, 3.1_4, 1_)
 *   hex      := [0-9a-fA-F][0-9a-fA-F_]*   bin := [01][01_]*
 *   exp      := 'e' sign? dec   ('E' only after a fraction: futhark-data
 *               reads 1E3 as 1 followed by garbage)
 *   isuffix  := i8 i16 i32 i64 u8 u16 u32 u64;  fsuffix := f16 f32 f64
 *
 * Whitespace (space, \t \n \v \f \r) and `--` line comments may come
 * before a value and between the tokens of an array.  A literal ends at
 * whitespace, ',', '[', ']', '(', ')' or the end of the input.
 *
 * Rejected with a reason: an integer that does not fit its type (128i8,
 * -1u8, 0xffi8); a decimal integer with a leading zero (010: Futhark's C
 * runtime reads it as octal, the others as decimal); a float whose value
 * rounds to infinity in its type (1e39f32); an integer suffix on a float
 * (1.5i32) or a float suffix on 0x/0b; '.5', '1.', hexadecimal floats,
 * 'nan'/'inf' without a type; string literals (futhark-data's u8 arrays:
 * AFMT_E_UNSUPPORTED); empty(...) nested inside an array.
 *
 * Values: integers are two's complement, bool is one byte 0/1, floats are
 * IEEE binary16/32/64 rounded to nearest, ties to even, *correctly*: the
 * decimal is converted exactly (Clinger's fast path when the digits and
 * the power of ten are exact in the target, else exact big-integer
 * arithmetic on at most 800 significant digits plus a sticky digit), so
 * f32 and f16 are never double-rounded through f64.  A value too small for
 * its type rounds to (signed) zero, as every reader does.  -0.0 keeps its
 * sign.  f16.nan/f32.nan/f64.nan are the quiet NaNs 0x7e00, 0x7fc00000,
 * 0x7ff8000000000000 (what Futhark writes).
 *
 * Error codes: AFMT_E_TRUNCATED (the input ends inside a value),
 * AFMT_E_VALUE (a malformed token or a literal out of range: the message
 * says what was expected and what was found), AFMT_E_UNKNOWN_TYPE (unknown
 * suffix or element type name), AFMT_E_CONSTRAINT (irregular array, mixed
 * element types, empty(...) without a zero dimension), AFMT_E_LIMIT (rank
 * above the limit), AFMT_E_OVERFLOW (an empty(...) dimension above
 * 2^63-1), AFMT_E_UNSUPPORTED (string literal), AFMT_E_USAGE (decode:
 * destination too small, or a view that is not what scan made).  The field
 * is "element" with the element's row-major index for a bad literal,
 * "value" otherwise; the offset is the absolute byte offset of the
 * offending token.
 */
#ifndef AFMT_FUTHARK_TEXT_H
#define AFMT_FUTHARK_TEXT_H

#include <stdint.h>
#include "../array/afmt_array.h"
#include "../common/afmt_dtype.h"
#include "../common/afmt_error.h"
#include "../io/afmt_sink.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The encoding of a text view. */
#define AFMT_FUTHARK_TEXT_ENCODING AFMT_ENC_TEXT

/* Scan one text value starting at buf[pos], which is at whitespace, a
 * `--` comment or the value itself (whitespace and comments are skipped).
 * On success returns 0, sets *end to the offset just past the value (the
 * closing ']' or ')', or the literal's last byte) and fills *out: dtype,
 * elsize = dtype size, rank (at most max_rank and AFMT_RANK_CAP), dims,
 * count = prod(dims), order AFMT_ROW_MAJOR, encoding
 * AFMT_FUTHARK_TEXT_ENCODING, endian AFMT_LITTLE, and data = buf + start,
 * nbytes = *end - start, offset = start, where start is the value's first
 * byte (after any leading whitespace and comments).  On failure returns -1
 * with err filled (see above); *out and *end are then unspecified. */
AFMT_GEN_API int afmt_futhark_text_scan(const uint8_t *buf, uint64_t len, uint64_t pos, uint64_t max_rank,
                                        uint64_t *end, afmt_array *out, afmt_error *err);

/* Decode a text view (as filled by scan) into dst: count elements of
 * afmt_dtype_get(dtype)->size bytes, row-major, little-endian: the same
 * bytes as the payload of the equivalent binary value.  dst_size must be
 * at least count * size.  The text is parsed again (with the same checks),
 * so a view that was not made by scan fails cleanly. */
AFMT_GEN_API int afmt_futhark_text_decode(const afmt_array *view, uint8_t *dst, uint64_t dst_size,
                                          afmt_error *err);

/* Its writer, afmt_futhark_text_write, is public: afmt.h. */

#ifdef __cplusplus
}
#endif
#endif /* AFMT_FUTHARK_TEXT_H */
