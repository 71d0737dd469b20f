/* INTERNAL HEADER: for generated code and the runtime only, not an API (it
 * changes with AFMT_RUNTIME_ABI); programs include <afmt/afmt.h> and <afmt/<format>.h>. */
/* afmt runtime: element types.  The declarations are public and live in
 * afmt.h; this header is kept so that existing includes keep working. */
#ifndef AFMT_DTYPE_H
#define AFMT_DTYPE_H
#include "../afmt.h"

#ifdef __cplusplus
extern "C" {
#endif
#ifdef __cplusplus
}
#endif
#endif /* AFMT_DTYPE_H */
