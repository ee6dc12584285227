#include "experiment/pool_nats.h"

#include <stdbool.h>
#include <string.h>
#include <time.h>

#include "experiment/sweep.h"
#include "protocol/utf8.h"

const char *pool_nats_why(natsStatus s)
{
    natsStatus last;
    const char *text = nats_GetLastError(&last);
    return text && *text ? text : natsStatus_GetText(s);
}

int pool_nats_connect(pool_nats_t *p, const char *url, const char *name, double give_up_s,
                      volatile sig_atomic_t *stop, char *msg, size_t msg_len)
{
    memset(p, 0, sizeof *p);
    natsOptions *o = NULL;
    natsStatus s = natsOptions_Create(&o);
    if (s == NATS_OK) s = natsOptions_SetURL(o, url);
    if (s == NATS_OK) s = natsOptions_SetName(o, name);
    if (s == NATS_OK) s = natsOptions_SetMaxReconnect(o, -1);
    if (s == NATS_OK) s = natsOptions_SetReconnectWait(o, 500);
    if (s == NATS_OK) s = natsOptions_SetTimeout(o, 2000);
    if (s != NATS_OK) {
        natsOptions_Destroy(o);
        return text_fail(msg, msg_len, "--nats %s: %s", url, pool_nats_why(s));
    }
    double started = sweep_now();
    for (;;) {
        s = natsConnection_Connect(&p->nc, o);
        if (s == NATS_OK || (stop && *stop) || (give_up_s > 0 && sweep_now() - started >= give_up_s)) break;
        struct timespec second = {1, 0};
        nanosleep(&second, NULL);
    }
    natsOptions_Destroy(o);
    if (s != NATS_OK) {
        p->nc = NULL;
        return text_fail(msg, msg_len, "cannot connect to NATS at %s: %s", url, pool_nats_why(s));
    }
    jsOptions jo;
    jsOptions_Init(&jo);
    jo.Wait = 5000;
    if ((s = natsConnection_JetStream(&p->js, p->nc, &jo)) != NATS_OK) {
        pool_nats_close(p);
        return text_fail(msg, msg_len, "NATS at %s: no JetStream context: %s", url, pool_nats_why(s));
    }
    return 0;
}

void pool_nats_close(pool_nats_t *p)
{
    if (p->js) jsCtx_Destroy(p->js);
    if (p->nc) {
        natsConnection_Close(p->nc);
        natsConnection_Destroy(p->nc);
    }
    p->js = NULL;
    p->nc = NULL;
}
