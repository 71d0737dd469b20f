/* afmt-gen: lexer of spec expressions (re2c source).
 * `make regen` turns this into generated/gen/expr_lexer.c. */
#include <stdint.h>
#include <stddef.h>
#include "expr.h"

/* Value of a decimal/hex/binary literal with '_' separators; sets *ok = 0
 * on overflow so "0x1_0000_0000_0000_0000" is an error, not a wrap. */
static uint64_t parse_int(const char *s, const char *e, int *ok)
{
    unsigned base = 10;
    uint64_t v = 0;
    if (e - s > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) { base = 16; s += 2; }
    else if (e - s > 2 && s[0] == '0' && (s[1] == 'b' || s[1] == 'B')) { base = 2; s += 2; }
    for (; s < e; s++) {
        unsigned d;
        if (*s == '_') continue;
        if (*s >= '0' && *s <= '9') d = (unsigned)(*s - '0');
        else if (*s >= 'a' && *s <= 'f') d = (unsigned)(*s - 'a' + 10);
        else d = (unsigned)(*s - 'A' + 10);
        if (v > (UINT64_MAX - d) / base) { *ok = 0; return 0; }
        v = v * base + d;
    }
    return v;
}

token expr_lex(const char **cursor)
{
    const char *YYCURSOR = *cursor, *YYMARKER = NULL, *start;
    token t;
    t.ival = 0;
again:
    start = YYCURSOR;
#define TOK(k) do { t.kind = (k); goto done; } while (0)
    /*!re2c
    re2c:define:YYCTYPE = "unsigned char";
    re2c:yyfill:enable = 0;

    dec = [0-9] ([0-9_]* [0-9])?;
    hex = "0" [xX] [0-9a-fA-F] ([0-9a-fA-F_]* [0-9a-fA-F])?;
    bin = "0" [bB] [01] ([01_]* [01])?;
    name = [a-zA-Z_] [a-zA-Z_0-9]*;

    "\x00" { YYCURSOR--; TOK(TK_END); }
    [ \t\r\n]+ { goto again; }
    dec | hex | bin {
        int ok = 1;
        t.ival = parse_int(start, YYCURSOR, &ok);
        if (!ok) TOK(TK_ERROR);
        TOK(TK_INT);
    }
    "'" [^'\x00\n]* "'" { TOK(TK_STR); }
    "\"" [^"\x00\n]* "\"" { TOK(TK_STR); }
    name { TOK(TK_NAME); }
    "(" { TOK(TK_LPAREN); }   ")" { TOK(TK_RPAREN); }
    "[" { TOK(TK_LBRACK); }   "]" { TOK(TK_RBRACK); }
    "," { TOK(TK_COMMA); }    "." { TOK(TK_DOT); }
    "?" { TOK(TK_QUESTION); } ":" { TOK(TK_COLON); }
    "+" { TOK(TK_PLUS); }     "-" { TOK(TK_MINUS); }
    "*" { TOK(TK_STAR); }     "/" { TOK(TK_SLASH); }
    "%" { TOK(TK_PERCENT); }  "&" { TOK(TK_AMP); }
    "|" { TOK(TK_PIPE); }     "^" { TOK(TK_CARET); }
    "~" { TOK(TK_TILDE); }    "!" { TOK(TK_BANG); }
    "<<" { TOK(TK_SHL); }     ">>" { TOK(TK_SHR); }
    "==" { TOK(TK_EQ); }      "!=" { TOK(TK_NE); }
    "<" { TOK(TK_LT); }       "<=" { TOK(TK_LE); }
    ">" { TOK(TK_GT); }       ">=" { TOK(TK_GE); }
    "&&" { TOK(TK_ANDAND); }  "||" { TOK(TK_OROR); }
    * { TOK(TK_ERROR); }
    */
done:
#undef TOK
    t.start = start;
    t.len = (size_t)(YYCURSOR - start);
    *cursor = YYCURSOR;
    (void)YYMARKER;
    return t;
}
