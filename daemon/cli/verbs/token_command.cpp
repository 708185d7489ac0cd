// `warpwatch token`: a new bearer token for warpwatchd's HTTP API (docs/operations.md §9): the
// token on stdout, the tokens file's line (its SHA-256, never the token) on stderr.
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/rand.h>

#include <algorithm>
#include <array>
#include <ostream>
#include <stdexcept>

#include "commands.hpp"
#include "warpwatch/base/sha256.hpp"

namespace warpwatch::cli {
namespace {

// 32 bytes from OpenSSL's CSPRNG (RAND_bytes, seeded from the kernel's) in RFC 4648 base64url
// without padding: 43 characters.
std::string new_token() {
  std::array<unsigned char, 32> bytes{};
  if (RAND_bytes(bytes.data(), static_cast<int>(bytes.size())) != 1)
    throw std::runtime_error("OpenSSL: RAND_bytes failed");
  std::array<unsigned char, 4 * ((bytes.size() + 2) / 3) + 1> text{};  // and the NUL
  const int n = EVP_EncodeBlock(text.data(), bytes.data(), static_cast<int>(bytes.size()));
  OPENSSL_cleanse(bytes.data(), bytes.size());
  std::string token(reinterpret_cast<const char*>(text.data()), static_cast<std::size_t>(n));
  OPENSSL_cleanse(text.data(), text.size());
  while (!token.empty() && token.back() == '=') token.pop_back();
  std::replace(token.begin(), token.end(), '+', '-');
  std::replace(token.begin(), token.end(), '/', '_');
  return token;
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
  const std::string token = new_token();
  out << token << "\n";
  err << cmd.name << " " << cmd.role << " " << stream::to_hex(stream::sha256(token)) << "\n";
  return 0;
}

}  // namespace warpwatch::cli
