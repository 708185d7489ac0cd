// `warpwatch token`: a new bearer token for warpwatchd's HTTP API (docs/operations.md §9): the
// token on stdout, the tokens file's line (its SHA-256, never the token) on stderr.
#include <sys/random.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <ostream>
#include <stdexcept>

#include "commands.hpp"
#include "warpwatch/base/sha256.hpp"

namespace warpwatch::cli {
namespace {

// 32 bytes from the kernel's CSPRNG (getrandom(2), which waits until it is seeded).
std::array<std::uint8_t, 32> random_bytes() {
  std::array<std::uint8_t, 32> bytes{};
  std::size_t got = 0;
  while (got < bytes.size()) {
    const ssize_t n = ::getrandom(bytes.data() + got, bytes.size() - got, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw std::runtime_error(std::string("getrandom: ") + std::strerror(errno));
    got += static_cast<std::size_t>(n);
  }
  return bytes;
}

// RFC 4648 base64url without padding: 43 characters for 32 bytes.
std::string base64url(std::span<const std::uint8_t> bytes) {
  static constexpr char alphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  std::string out;
  std::uint32_t bits = 0;
  int held = 0;
  for (const std::uint8_t b : bytes) {
    bits = (bits << 8) | b;
    held += 8;
    while (held >= 6) {
      held -= 6;
      out += alphabet[(bits >> held) & 0x3f];
    }
  }
  if (held > 0) out += alphabet[(bits << (6 - held)) & 0x3f];
  return out;
}

}  // namespace

CLI::App* add_token_command(CLI::App& app, TokenCommand& cmd) {
  auto* sub = app.add_subcommand(
      "token",
      "print a new bearer token for warpwatchd's HTTP API on stdout, and on stderr the line "
      "`NAME ROLE SHA256-HEX` to add to http.tokens_file (the token itself is stored nowhere)");
  sub->add_option("name", cmd.name, "names the token's holder (one word: in logs and changes)")
      ->required()
      ->check([](const std::string& name) -> std::string {
        if (name.empty() || name.find_first_of(" \t#") != std::string::npos)
          return "a token name is one word without '#'";
        return {};
      });
  sub->add_option("--role", cmd.role, "read: every GET; write: everything")
      ->required()
      ->check(CLI::IsMember({"read", "write"}));
  return sub;
}

int run_token(const TokenCommand& cmd, std::ostream& out, std::ostream& err) {
  const std::string token = base64url(random_bytes());
  out << token << "\n";
  err << cmd.name << " " << cmd.role << " " << stream::to_hex(stream::sha256(token)) << "\n";
  return 0;
}

}  // namespace warpwatch::cli
