#ifndef CAVAHI_SHIM_H
#define CAVAHI_SHIM_H

// Avahi's client library (Debian: libavahi-client-dev), which talks to avahi-daemon over D-Bus.
// Not its dns_sd compatibility library: that one has no DNSServiceGetAddrInfo, and the host name
// DNSServiceResolve gives (HOST.local) needs nss-mdns to become an address; Avahi's resolver
// gives the address itself.
#include <avahi-client/client.h>
#include <avahi-client/lookup.h>
#include <avahi-client/publish.h>
#include <avahi-common/address.h>
#include <avahi-common/error.h>
#include <avahi-common/malloc.h>
#include <avahi-common/simple-watch.h>
#include <avahi-common/strlst.h>
#include <avahi-common/thread-watch.h>

#endif
