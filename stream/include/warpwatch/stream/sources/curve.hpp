// CURVE (ZeroMQ's RFC 26: encryption and the server's proof of its key) for warpwatch's
// ZeroMQ sockets: keys in Z85 text (40 characters for 32 bytes), the files that hold them
// (docs/operations.md §6), and a socket's settings as a server or a client.
// Which clients a server accepts is not here: a ZAP handler decides that (zap_handler.hpp);
// without one libzmq would accept every CURVE client, so a server socket is also told to
// refuse all clients when no handler answers (ZMQ_ZAP_ENFORCE_DOMAIN).
#pragma once

#include <zmq.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace warpwatch::stream {

inline constexpr std::size_t z85_key_chars = 40;  // a 32-byte key in Z85

struct CurveKeyPair {
  std::string public_key;  // Z85
  std::string secret_key;  // Z85
  bool operator==(const CurveKeyPair&) const = default;
};

// Whether this libzmq was built with CURVE (zmq_has("curve")); require_curve() throws
// std::runtime_error saying what is missing when it was not.
bool curve_available();
void require_curve();

// Whether `text` is one Z85 key: 40 characters of Z85's alphabet.
bool is_z85_key(std::string_view text);

// A fresh key pair (zmq_curve_keypair).
CurveKeyPair generate_curve_keypair();
// The pair of a secret key (zmq_curve_public computes its public key). Throws
// std::invalid_argument when `secret_key` is not a Z85 key.
CurveKeyPair key_pair_of(std::string_view secret_key);

// Key files: text, one Z85 key per line; blank lines and lines starting with '#' are
// comments; spaces around a key are ignored. Errors are std::runtime_error naming the file
// and, for a bad line, its number.
//
// A file of exactly one key: a public key file (`<prefix>.pub` of `warpwatch keygen`), or,
// with `secret`, a secret key file, which must not be open to group or others (mode 0600
// or stricter, as ssh asks of private keys): a key that others may read is no secret.
std::string read_key_file(const std::string& path, bool secret);
// A list of public keys (allowed clients), in file order, duplicates dropped; it may be
// empty.
std::vector<std::string> read_key_list_file(const std::string& path);
// Writes `<prefix>.key` (the secret key, mode 0600) and `<prefix>.pub` (the public key,
// mode 0644), each with a comment line saying what it is. An existing file is kept and
// std::runtime_error thrown unless `overwrite` (then it is replaced, the .key file with
// mode 0600 again). Nothing is written when either file is refused.
void write_key_files(const CurveKeyPair& keys, const std::string& prefix, bool overwrite);

// One socket's CURVE settings, applied before it binds or connects (they hold for the
// connections made after them).
struct CurveSocketOptions {
  CurveKeyPair keys;  // this socket's own key pair
  // A client's: the public key of the server it connects to; "" makes this socket a server.
  std::string server_public_key;
  // A server's ZAP domain (ZMQ_ZAP_DOMAIN): names the socket to the ZAP handler, which
  // counts and logs its refusals under it.
  std::string zap_domain;
};
// Sets ZMQ_CURVE_SERVER, the keys, the ZAP domain and ZMQ_ZAP_ENFORCE_DOMAIN (a server) or
// ZMQ_CURVE_SERVERKEY and the keys (a client). Throws std::runtime_error when this libzmq
// has no CURVE or refuses a setting.
void apply_curve(zmq::socket_t& socket, const CurveSocketOptions& curve);

}  // namespace warpwatch::stream
