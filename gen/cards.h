/* afmt-gen: the "cards" item (spec/LANGUAGE.md, "Card headers"): text
 * headers of fixed-width records and the data units they describe (FITS).
 * The item loads into a runtime afmt_cards_desc (runtime/text/afmt_cards.h),
 * which the generator emits as constant data and the interpreter runs
 * as it is; this module loads it and emits it. */
#ifndef AFMT_GEN_CARDS_H
#define AFMT_GEN_CARDS_H

struct emitter;
struct item;
struct spec;
struct afmt_cards_desc;

/* The item's description (malloc'd, owned for the process), or NULL
 * after errors counted in *errors. */
struct afmt_cards_desc *cards_load(const char *path, void *obj, const char *jp, int *errors);
/* The descriptor in the prelude and the validator's call. */
void cards_emit_validate(struct emitter *m, struct item *it);
/* The writer of a spec holding a cards item: <format>_write_impl. */
void cards_emit_writer(struct emitter *m);
/* Whether the spec's top level holds a cards item. */
int cards_in_spec(const struct spec *s);

#endif /* AFMT_GEN_CARDS_H */
