/* afmt fuzz target: convert (see fuzz/README.md and fz_check_convert in
 * fuzz_checks.h).  Every format in the registry, no format named here. */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_target_run(FZ_TARGET_CONVERT, data, size);
    return 0;
}
