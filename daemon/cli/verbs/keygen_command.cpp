// `warpwatch keygen`: a CURVE key pair for the daemon or one of its clients (docs/operations.md
// §6).
#include <ostream>

#include "commands.hpp"
#include "warpwatch/stream/sources/curve.hpp"

namespace warpwatch::cli {

CLI::App* add_keygen_command(CLI::App& app, KeygenCommand& cmd) {
  auto* sub = app.add_subcommand(
      "keygen",
      "write a CURVE key pair: <prefix>.key (secret, mode 0600) and <prefix>.pub (public); "
      "print the public key");
  sub->add_option("prefix", cmd.prefix, "path of the two files without their extension")
      ->required();
  sub->add_flag("--force", cmd.force, "replace files that exist");
  return sub;
}

int run_keygen(const KeygenCommand& cmd, std::ostream& out, std::ostream&) {
  const stream::CurveKeyPair keys = stream::generate_curve_keypair();
  stream::write_key_files(keys, cmd.prefix, cmd.force);
  out << keys.public_key << "\n";
  return 0;
}

}  // namespace warpwatch::cli
