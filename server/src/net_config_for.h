/* net_config_for: the listening side of the configuration, the same for
 * the simulation's own viewers (app/app.c) and a relay's (relay/relay.c). */
#ifndef SWARMCAST_NET_CONFIG_FOR_H
#define SWARMCAST_NET_CONFIG_FOR_H

#include "config.h"
#include "net/net.h"
#include "protocol/messages.h"

static inline net_config_t net_config_for(const config_t *cfg)
{
    return (net_config_t){
        .bind = cfg->bind,
        .port = cfg->port,
        .web_root = cfg->web_root,
        .max_clients = cfg->max_clients,
        .max_message_bytes = PROTOCOL_MAX_MESSAGE_BYTES,
        .max_per_address = cfg->max_per_address,
        .connect_per_s = cfg->connect_per_s,
        .connect_burst = cfg->connect_burst,
        .auth_free_failures = cfg->auth_free_failures,
        .allow_origin = cfg->allow_origin,
        .trusted_proxies = cfg->trusted_proxies,
        .metrics_bind = cfg->metrics_bind,
        .metrics_port = cfg->metrics_port,
        .idle_timeout_ms = (unsigned)(cfg->idle_timeout_s * 1000),
        .stall_timeout_ms = (unsigned)(cfg->stall_timeout_s * 1000),
        .deflate = cfg->deflate,
    };
}

#endif
