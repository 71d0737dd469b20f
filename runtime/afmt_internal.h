/* INTERNAL HEADER: for generated code and the runtime only, not an API (it
 * changes with AFMT_RUNTIME_ABI); programs include <afmt/afmt.h> and <afmt/<format>.h>. */
/* afmt_internal.h: what generated code calls.  NOT A PUBLIC API.
 *
 * Generated <format>.c files include this header; the runtime's own .c
 * files include the parts they need.  Nothing here is meant for programs
 * that use afmt: these functions (afmt_run_*, afmt_field_*, afmt_src_take,
 * afmt_src_short, afmt_src_fill, afmt_tiles_*, afmt_tolerate, afmt_fail, the
 * one-call steps of afmt_step.h (afmt_take_field, afmt_take_padding, ...),
 * the typed afmt_sink_u* writes, ...) change whenever afmt-gen's output
 * does, and AFMT_RUNTIME_ABI (afmt.h) is bumped with them.  What generated
 * code calls is marked AFMT_GEN_API where it is declared: libafmt.so exports
 * that and the public API (AFMT_API), nothing else.  Include afmt.h
 * and your format's <format>.h instead.
 */
#ifndef AFMT_INTERNAL_H
#define AFMT_INTERNAL_H

#include "afmt.h"
#include "common/afmt_bytes.h"
#include "common/afmt_error.h"
#include "common/afmt_dtype.h"
#include "array/afmt_array.h"
#include "common/afmt_options.h"
#include "io/afmt_sink.h"
#include "io/afmt_src.h"
#include "core/afmt_fields.h"
#include "common/afmt_float.h"
#include "compress/afmt_lz4.h"
#include "array/afmt_tiles.h"
#include "text/afmt_meta.h"
#include "text/afmt_texthdr.h"
#include "text/afmt_header_arrays.h"
#include "text/afmt_futhark_text.h"
#include "core/afmt_driver.h"
#include "core/afmt_format.h"
#include "core/afmt_step.h"
#include "core/afmt_write_check.h"
#include "core/afmt_gen_expr.h"
#include "common/afmt_unique_keys.h"
#include "array/afmt_dir.h"
#include "array/afmt_dir_records.h"
#include "array/afmt_write_dir.h"
#include "core/afmt_value.h"
#include "compress/afmt_crc32.h"
#include "compress/afmt_inflate.h"
#include "compress/afmt_inflated.h"
#include "archive/afmt_ar_values.h"
#include "archive/afmt_archive.h"
#include "archive/afmt_zip_write.h"
#include "pickle/afmt_pickle.h"
#include "archive/afmt_ar_detect.h"
#include "archive/afmt_ar_write.h"
#include "text/afmt_cards.h"

#endif /* AFMT_INTERNAL_H */
