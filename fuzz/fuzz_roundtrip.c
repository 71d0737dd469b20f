/* afmt fuzz target: roundtrip (see fuzz/README.md and fz_check_roundtrip in
 * fuzz_checks.h).  Every format in the registry, no format named here. */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_target_run(FZ_TARGET_ROUNDTRIP, data, size);
    return 0;
}
