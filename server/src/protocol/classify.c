#include "protocol/classify.h"

#include <string.h>

static bool unknown(const cmd_error_t *err) { return strcmp(err->code, "unknown_command") == 0; }

void classify_message(const char *data, size_t len, const cmd_limits_t *limits, uint32_t client_id, classified_t *out)
{
    if (cmd_decode(data, len, limits, client_id, &out->cmd, &out->err) == 0) {
        out->kind = CLASSIFIED_COMMAND;
        return;
    }
    out->kind = CLASSIFIED_INVALID;
    if (!unknown(&out->err)) return;
    int prc = presence_decode(data, len, limits, &out->presence, &out->err);
    if (prc == PRESENCE_DECODED) {
        out->kind = CLASSIFIED_PRESENCE;
        return;
    }
    if (prc != PRESENCE_NOT_PRESENCE) return;
    int arc = auth_decode(data, len, out->token, &out->request_id, &out->err);
    if (arc == AUTH_DECODED) {
        out->kind = CLASSIFIED_AUTH;
        return;
    }
    if (arc != AUTH_NOT_AUTH || !unknown(&out->err)) return;
    int vrc = view_decode(data, len, &out->view, &out->err);
    if (vrc == VIEW_DECODED) out->kind = CLASSIFIED_VIEW;
    if (vrc != VIEW_NOT_VIEW) return;
    /* Nobody else knew the type: unless this one does, cmd_decode's
     * "unknown_command" stands. */
    if (room_decode(data, len, &out->room, &out->err) == ROOM_DECODED) out->kind = CLASSIFIED_ROOM;
}
