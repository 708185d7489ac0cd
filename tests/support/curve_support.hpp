// CURVE in tests: key pairs written as `warpwatch keygen` writes them, allowed-client
// lists, and sockets set up as CURVE clients or servers (stream/curve.hpp).
#pragma once

#include <sys/stat.h>

#include <zmq.hpp>

#include <string>
#include <vector>

#include "test_support.hpp"
#include "warpwatch/stream/sources/curve.hpp"

namespace warpwatch::testing {

struct KeyFiles {
  stream::CurveKeyPair keys;
  std::string secret_file, public_file;  // <prefix>.key, <prefix>.pub
};

// A fresh pair in `dir`/<name>.key and .pub.
inline KeyFiles write_key_pair(const TempDir& dir, const std::string& name) {
  KeyFiles files{stream::generate_curve_keypair(), dir.file(name + ".key"),
                 dir.file(name + ".pub")};
  stream::write_key_files(files.keys, dir.file(name), false);
  return files;
}

// An allowed-clients file of these public keys, with a comment and a blank line.
inline std::string write_allowed(const TempDir& dir, const std::string& name,
                                 const std::vector<std::string>& public_keys) {
  std::string text = "# clients allowed\n\n";
  for (const auto& key : public_keys) text += key + "\n";
  return dir.write(name, text);
}

// The permission bits of a file.
inline unsigned file_mode(const std::string& path) {
  struct stat st {};
  ::stat(path.c_str(), &st);
  return static_cast<unsigned>(st.st_mode & 07777);
}

// A socket of `type` that will connect as a CURVE client with `own` to `server_public`.
inline zmq::socket_t curve_client_socket(zmq::context_t& context, zmq::socket_type type,
                                         const stream::CurveKeyPair& own,
                                         const std::string& server_public) {
  zmq::socket_t socket(context, type);
  socket.set(zmq::sockopt::linger, 0);
  stream::apply_curve(socket, {.keys = own, .server_public_key = server_public, .zap_domain = {}});
  return socket;
}

}  // namespace warpwatch::testing
