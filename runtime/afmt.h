/* afmt: umbrella header of the runtime. */
#ifndef AFMT_H
#define AFMT_H
#include "afmt_bytes.h"
#include "afmt_error.h"
#include "afmt_dtype.h"
#include "afmt_array.h"
#include "afmt_options.h"
#include "afmt_sink.h"
#include "afmt_format.h"
#include "afmt_fields.h"
#include "afmt_lz4.h"
#include "afmt_tiles.h"
#include "afmt_src.h"
#include "afmt_meta.h"
#include "afmt_futhark_text.h"
#include "afmt_driver.h"
#endif
