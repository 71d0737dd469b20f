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
#include "afmt_bytes.h"
#include "afmt_error.h"
#include "afmt_dtype.h"
#include "afmt_array.h"
#include "afmt_options.h"
#include "afmt_sink.h"
#include "afmt_src.h"
#include "afmt_fields.h"
#include "afmt_float.h"
#include "afmt_lz4.h"
#include "afmt_tiles.h"
#include "afmt_meta.h"
#include "afmt_texthdr.h"
#include "afmt_thdir.h"
#include "afmt_futhark_text.h"
#include "afmt_driver.h"
#include "afmt_format.h"
#include "afmt_step.h"
#include "afmt_write_check.h"
#include "afmt_gen_expr.h"
#include "afmt_uniq.h"
#include "afmt_dir.h"
#include "afmt_dir_records.h"
#include "afmt_write_dir.h"
#include "afmt_value.h"
#include "afmt_crc32.h"
#include "afmt_inflate.h"
#include "afmt_inflated.h"
#include "afmt_ar_values.h"
#include "afmt_archive.h"
#include "afmt_zip_write.h"
#include "afmt_pickle.h"
#include "afmt_ar_detect.h"
#include "afmt_ar_write.h"
#include "afmt_cards.h"

#endif /* AFMT_INTERNAL_H */
