/* libFuzzer target: the state-file reader (server/src/protocol/state_file.c).
 * Any bytes are parsed against a 1600x900 world of at most 2000 agents; what
 * is accepted is applied to a world, which then steps twice — so an
 * accepted file that a world could not live with shows up as a sanitizer
 * report here. Seed corpus: tests/fuzz/corpus/state_file/. */
#include <stddef.h>
#include <stdint.h>

#include "protocol/state_file.h"
#include "sim/world.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static world_t world;
    static bool ready;
    if (!ready) {
        world_config_t cfg = {.width = 1600, .height = 900, .dt = 1.0f / 60.0f, .seed = 1, .agents = 0,
                              .max_agents = 2000, .max_targets = 4, .threads = 1};
        if (world_init(&world, &cfg)) __builtin_trap();
        ready = true;
    }
    cmd_limits_t limits = {world.width, world.height, world.max_agents};
    state_image_t img;
    char msg[400];
    if (state_file_parse((const char *)data, size, &limits, &img, msg, sizeof msg) != STATE_FILE_OK) return 0;
    if (state_image_apply(&img, &world, msg, sizeof msg) != STATE_FILE_OK) __builtin_trap();
    state_image_free(&img);
    world_step(&world);
    world_step(&world);
    return 0;
}
