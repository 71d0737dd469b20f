/* afmt CLI: default settings (see config.h). */
#include "config.h"

#include <string.h>

#include "input.h"

void afmt_cli_config_default(afmt_cli_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    afmt_options_default(&cfg->opt);
    cfg->jobs = 0; /* -j not given: one per CPU (validate.c) */
    cfg->file_limit = cfg->opt.limits.max_total_bytes;
    cfg->stream_limit = AFMT_CLI_STREAM_DEFAULT_LIMIT;
    /* a verdict needs no array's data: a large deflated archive member is
     * checked through a window, not inflated into memory */
    cfg->opt.limits.max_held_bytes = AFMT_CLI_HELD_BYTES;
}
