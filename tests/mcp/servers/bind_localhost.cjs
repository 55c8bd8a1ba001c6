// Node preload (node --require THIS server.js): keep test servers off the network.
// server-everything calls app.listen(PORT) without a host, which would listen on every
// interface; this wraps net.Server#listen so a bare port (or an options object without a
// host or path) is bound to 127.0.0.1 only.
"use strict";
const net = require("node:net");

const LOOPBACK = "127.0.0.1";
const originalListen = net.Server.prototype.listen;

net.Server.prototype.listen = function listenOnLoopback(...args) {
  const first = args[0];
  const isPort = typeof first === "number" || (typeof first === "string" && /^[0-9]+$/.test(first));
  if (isPort) {
    if (typeof args[1] === "string") {
      args[1] = LOOPBACK;
    } else {
      args.splice(1, 0, LOOPBACK);
    }
  } else if (first && typeof first === "object" && first.path === undefined) {
    args[0] = Object.assign({}, first, { host: LOOPBACK });
  }
  return originalListen.apply(this, args);
};
