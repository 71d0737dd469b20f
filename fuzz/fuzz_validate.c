/* afmt fuzz target: validate (see fuzz/README.md and fz_check_validate in
 * fuzz_checks.h).  Every format in the registry, no format named here. */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_target_run(FZ_TARGET_VALIDATE, data, size);
    return 0;
}
