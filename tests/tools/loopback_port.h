/* loopback_port: what the C tests that start a server (nats-server, the
 * simulation) need of 127.0.0.1's ports. */
#ifndef SWARMCAST_LOOPBACK_PORT_H
#define SWARMCAST_LOOPBACK_PORT_H

#include <stdbool.h>

/* A port nothing listens on now (the kernel's pick), or -1. */
int loopback_free_port(void);
/* Whether something accepts connections on 127.0.0.1:port. */
bool loopback_port_open(int port);

#endif
