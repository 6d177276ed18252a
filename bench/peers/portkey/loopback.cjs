// Portkey's start script takes a port but no host, so its server listens on every interface; this
// preload (node --require) makes a listen without a host bind 127.0.0.1, as the bench's other subjects do.
const net = require("node:net");

const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (port, host, ...rest) {
  if (typeof port === "number" && host === undefined) return listen.call(this, port, "127.0.0.1", ...rest);
  return listen.call(this, port, host, ...rest);
};
