/* The interpreter's "cards" item: the runtime machine (runtime/text/afmt_cards.c)
 * run on the descriptor afmt-gen's loader built (gen/cards.c), the same
 * one the generator emits as constant data. */
#include "text/afmt_cards.h"
#include "interp.h"

int irun_cards(irun *r, const item *it)
{
    afmt_validation *c = r->c;
    return afmt_cards_validate(c, it->cards, afmt_end(c));
}
