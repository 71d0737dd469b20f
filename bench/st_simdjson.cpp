// afmt bench: the simdjson peer of the safetensors header walk (row 9).
//
//   st_simdjson FILE RUNS      prints "RESULT <median s> <min s> <max s>"
//   st_simdjson --version      prints simdjson's version
//
// Reads FILE's header (u64le length, then the JSON) into a padded buffer
// once, untimed; then each round parses it with simdjson's on-demand API
// and walks every entry as a safetensors reader must: the name, "dtype"
// (a string), "shape" (a list of unsigned integers) and "data_offsets"
// (two unsigned integers), skipping "__metadata__".  The walk's results
// are summed so that nothing is optimised away.  One untimed warm-up
// round; samples under 1 ms are batches divided by their size, as in
// validate_inproc.c.  Built by bench/run.sh only (libsimdjson-dev).
#include <simdjson.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

using namespace simdjson;

static uint64_t walk(ondemand::parser &parser, const padded_string &json)
{
    uint64_t acc = 0;
    ondemand::document doc = parser.iterate(json);
    for (auto field : doc.get_object()) {
        std::string_view name = field.unescaped_key();
        if (name == "__metadata__") continue;
        acc += name.size();
        ondemand::object entry = field.value().get_object();
        for (auto kv : entry) {
            std::string_view key = kv.unescaped_key();
            if (key == "dtype") {
                std::string_view t = kv.value().get_string();
                acc += t.size() + (uint8_t)t[0];
            } else if (key == "shape") {
                for (uint64_t d : kv.value().get_array()) acc += d;
            } else if (key == "data_offsets") {
                for (uint64_t o : kv.value().get_array()) acc ^= o;
            } else {
                throw std::runtime_error("unknown key");
            }
        }
    }
    return acc;
}

static double now()
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

int main(int argc, char **argv)
{
    if (argc == 2 && std::strcmp(argv[1], "--version") == 0) {
        std::printf("%d.%d.%d\n", (int)SIMDJSON_VERSION_MAJOR, (int)SIMDJSON_VERSION_MINOR, (int)SIMDJSON_VERSION_REVISION);
        return 0;
    }
    if (argc != 3) {
        std::fprintf(stderr, "usage: st_simdjson FILE RUNS | --version\n");
        return 2;
    }
    std::ifstream f(argv[1], std::ios::binary);
    unsigned char len8[8];
    if (!f.read(reinterpret_cast<char *>(len8), 8)) return 1;
    uint64_t n = 0;
    for (int i = 7; i >= 0; i--) n = n << 8 | len8[i];
    std::string text(n, '\0');
    if (!f.read(&text[0], (std::streamsize)n)) return 1;
    padded_string json(text);
    ondemand::parser parser(n + 64);
    int runs = std::atoi(argv[2]);
    volatile uint64_t sink = 0;
    try {
        sink = sink + walk(parser, json); // warm-up, and the batch size
        double t0 = now();
        sink = sink + walk(parser, json);
        double one = now() - t0;
        int batch = one < 1e-3 ? (int)(1e-3 / (one > 1e-7 ? one : 1e-7)) + 1 : 1;
        std::vector<double> s;
        for (int r = 0; r < runs; r++) {
            t0 = now();
            for (int b = 0; b < batch; b++) sink = sink + walk(parser, json);
            s.push_back((now() - t0) / batch);
        }
        std::sort(s.begin(), s.end());
        std::printf("RESULT %.9f %.9f %.9f\n", s[s.size() / 2], s.front(), s.back());
    } catch (std::exception &e) {
        std::fprintf(stderr, "st_simdjson: %s: %s\n", argv[1], e.what());
        return 1;
    }
    return 0;
}
