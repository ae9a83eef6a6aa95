/*
 * illEngine binary reader fuzz target (ILLMESH0, ILLMESH1, ILLSKEL0,
 * ILLANIM0, ILANSET0): load with the binary reader forced, validate, write
 * the kind of file it was as text and load that again as text
 * (fuzz_common.h); then write it as binary (ill.encoding=binary: ILLMESH1,
 * ILLSKEL0, ILLANIM0; .illanset files have no writer of their own) and
 * load that again as binary, which must succeed whenever the writer
 * accepted the model.
 *
 * Seeds (fuzz/corpus/ill_binary): fuzz/make_ill_corpus.py builds most of
 * them from docs/formats/ill.md; written.* are the binary writer's output
 * for a small text set (every vertex attribute, a reordered skeleton, two
 * frames), made with
 *   ossa convert hero.illmesh hero.illskel walk.illanim -o written.illmesh
 *       -W ill.encoding=binary
 * from the text seeds' mesh, skeleton and animation of tests/test_ill_roundtrip.c.
 */
#include "fuzz_common.h"

static void binary_round_trip(const uint8_t *data, size_t size, const ossa_load_options *load)
{
    static const ossa_option binary = {"ill.encoding", "binary"};
    ossa_error error;
    ossa_model *model = ossa_load_memory(data, size, load, &error);
    if (!model) return;
    ossa_write_options write = {0};
    write.format = model->source_format;
    write.format_options = &binary;
    write.num_format_options = 1;
    void *out = NULL;
    size_t out_size = 0;
    if (ossa_format_can_write(write.format) &&
        ossa_write_memory(model, &write, &out, &out_size, &error) == OSSA_OK) {
        ossa_load_options again_options = *load;
        again_options.format = write.format;
        ossa_model *again = ossa_load_memory(out, out_size, &again_options, &error);
        if (!again) __builtin_trap(); /* the writer produced a file we reject */
        ossa_model_validate(again, NULL, NULL, NULL);
        ossa_model_free(again);
        ossa_free(out, write.allocator);
    }
    ossa_model_free(model);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const ossa_format outputs[] = {OSSA_FORMAT_AUTO}; /* the kind read */
    ossa_load_options load = {0};
    load.format = OSSA_FORMAT_ILLMESH; /* any illEngine id: the magic picks the kind */
    static const ossa_option binary = {"ill.encoding", "binary"}, as_text = {"ill.encoding", "text"};
    load.format_options = &binary;
    load.num_format_options = 1;
    ossa_load_options text = load;
    text.format_options = &as_text;
    fuzz_round_trip(data, size, &load, &text, outputs, 1, 0);
    binary_round_trip(data, size, &load);
    return 0;
}
