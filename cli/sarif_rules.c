/* afmt CLI: SARIF's rules, one per afmt error code (see sarif.h).  The
 * name is a Pascal identifier (SARIF's "friendly name", as the SARIF
 * multitool's rule SARIF2012 asks), the short description the code's
 * meaning (afmt.h); the help says what to do about a file rejected with
 * it.  The full description GitHub code scanning requires is the two
 * together (sarif.c). */
#include "sarif.h"

#include <stddef.h>

static const afmt_cli_sarif_rule rules[AFMT_CODE_COUNT_] = {
    [AFMT_E_TRUNCATED] = { "InputCutShort", "The input ends inside a field or a payload.",
        "The file is shorter than its header says: it was cut short (an interrupted "
        "download or copy, a full disk). Fetch or write it again." },
    [AFMT_E_MAGIC] = { "WrongMagic", "Magic bytes or a fixed value differ.",
        "The file is not in the format its name or first bytes suggest, or its "
        "first bytes are damaged." },
    [AFMT_E_CONSTRAINT] = { "ConstraintBroken", "A field breaks a constraint of the format's spec.",
        "A header field holds a value the format does not allow; the message names "
        "the field, the rule and the value found." },
    [AFMT_E_UNKNOWN_TYPE] = { "UnknownTypeCode", "No entry of a type-code table matches.",
        "The element type code is not one the format defines (or afmt knows)." },
    [AFMT_E_OVERFLOW] = { "SizeOverflow", "A derived size does not fit in 64 bits.",
        "Sizes computed from header fields overflow: the header is corrupt or "
        "crafted." },
    [AFMT_E_LIMIT] = { "LimitExceeded", "A limit (rank, bytes, items) is exceeded.",
        "The file is larger or deeper than the limits afmt-validate was given "
        "(--max-bytes, --max-rank, --max-header-bytes, ...): raise the limit if "
        "the file is trusted." },
    [AFMT_E_TRAILING] = { "TrailingBytes", "Bytes follow the end of the structure.",
        "Data after the last array: an appended file, or a header that "
        "understates the sizes." },
    [AFMT_E_PADDING] = { "NonzeroPadding", "Padding or pad bits are not zero.",
        "A conforming writer zeroes padding; non-zero padding hides data or "
        "shows corruption (--lenient accepts what reference readers do)." },
    [AFMT_E_VALUE] = { "InvalidValue", "A payload element is not a valid value.",
        "An element is not a value of its type (a bool other than 0 or 1, ...)." },
    [AFMT_E_SIZE] = { "LengthMismatch", "A length field disagrees with its content.",
        "A stored length differs from the length of what it measures: the "
        "file was damaged or written by a faulty writer." },
    [AFMT_E_NEGATIVE] = { "NegativeSize", "A signed value used as a size is negative.",
        "A size or count field is negative: the header is corrupt or crafted." },
    [AFMT_E_UNSUPPORTED] = { "UnsupportedFeature", "Valid in the format, not supported by afmt.",
        "The file uses a feature of its format that afmt does not read." },
    [AFMT_E_IO] = { "InputUnreadable", "The input could not be read.",
        "Opening or reading the input failed (missing, unreadable, changed "
        "while it was read); this is no verdict on its content." },
    [AFMT_E_USAGE] = { "BadUsage", "Bad arguments from the caller.",
        "afmt was called in a way it does not support." },
    [AFMT_E_NOMEM] = { "OutOfMemory", "Memory ran out.",
        "afmt could not allocate what the check needed." },
    [AFMT_E_TYPE] = { "TypeNotHeld", "The target cannot hold this element type.",
        "A conversion target format has no such element type." },
    [AFMT_E_LOSSY] = { "LossyConversion", "A value would change in conversion.",
        "A conversion would change a value; afmt refuses it." },
    [AFMT_E_DETECT] = { "NoFormatMatches", "The input matches no known format.",
        "Neither magic bytes nor the extension name a format afmt knows; pass "
        "--format NAME to check it as one." },
    [AFMT_E_CALLBACK] = { "StoppedByCaller", "A callback asked to stop.",
        "The check was stopped by its caller." },
    [AFMT_E_DIVZERO] = { "DivisionByZero", "Division by zero in a spec expression.",
        "A header field used as a divisor is zero: the header is corrupt." },
};

const afmt_cli_sarif_rule *afmt_cli_sarif_rule_of(afmt_code code)
{
    if ((int)code <= 0 || (int)code >= (int)AFMT_CODE_COUNT_ || !rules[code].short_text)
        return NULL;
    return &rules[code];
}
