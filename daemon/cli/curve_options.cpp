// The CURVE options of the client verbs (`warpwatch tail`, `warpwatch load`).
#include <stdexcept>

#include "commands.hpp"

namespace warpwatch::cli {

void add_curve_client_options(CLI::App& sub, CurveClientFiles& files) {
  sub.add_option("--key", files.key_file,
                 "CURVE: this client's secret key file (`warpwatch keygen`'s .key; its public "
                 "key must be in the server's allowed list)")
      ->check(CLI::ExistingFile);
  sub.add_option("--server-key", files.server_key_file,
                 "CURVE: the server's public key file (the daemon's .pub)")
      ->check(CLI::ExistingFile);
}

std::optional<stream::CurveSocketOptions> curve_client(const CurveClientFiles& files) {
  if (files.key_file.empty() && files.server_key_file.empty()) return std::nullopt;
  if (files.key_file.empty() || files.server_key_file.empty())
    throw std::runtime_error("CURVE needs both --key and --server-key");
  return stream::CurveSocketOptions{
      .keys = stream::key_pair_of(stream::read_key_file(files.key_file, true)),
      .server_public_key = stream::read_key_file(files.server_key_file, false),
      .zap_domain = {}};
}

}  // namespace warpwatch::cli
