// `http:`: what spans its options (the alias `metrics.listen`, the rule that a listener beyond
// loopback needs tokens, TLS's two files, the external URL) and the tokens file.
#include <arpa/inet.h>

#include <fstream>
#include <sstream>

#include "warpwatch/config/config_reader.hpp"

namespace warpwatch::config {
namespace {

const PresentKey* present(const PresentKeys& top, std::string_view name) {
  const auto it = top.find(name);
  return it == top.end() ? nullptr : &it->second;
}

// 64 hex digits -> 32 bytes; false on anything else.
bool parse_digest(std::string_view hex, std::array<std::uint8_t, 32>& out) {
  if (hex.size() != 64) return false;
  const auto nibble = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  for (std::size_t i = 0; i < 32; ++i) {
    const int hi = nibble(hex[2 * i]), lo = nibble(hex[2 * i + 1]);
    if (hi < 0 || lo < 0) return false;
    out[i] = static_cast<std::uint8_t>(hi * 16 + lo);
  }
  return true;
}

}  // namespace

bool is_loopback_listen(std::string_view host_port) {
  const std::size_t colon = host_port.rfind(':');
  std::string host(host_port.substr(0, colon == std::string_view::npos ? 0 : colon));
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']')
    host = host.substr(1, host.size() - 2);
  if (host == "localhost") return true;
  in_addr v4{};
  if (::inet_pton(AF_INET, host.c_str(), &v4) == 1)
    return (ntohl(v4.s_addr) >> 24) == 127;  // 127.0.0.0/8
  in6_addr v6{};
  if (::inet_pton(AF_INET6, host.c_str(), &v6) == 1) return IN6_IS_ADDR_LOOPBACK(&v6);
  return false;  // "", "*", 0.0.0.0, a name: every address or another host
}

std::vector<ApiToken> read_tokens_file(const std::string& path, const SourceLocation& where) {
  std::ifstream in(path);
  if (!in) throw ConfigError(where, cat("cannot read tokens file ", in_quotes(path)));
  std::vector<ApiToken> tokens;
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    const std::size_t hash = line.find('#');
    if (hash != std::string::npos) line.erase(hash);
    std::istringstream words(line);
    std::string name, role, digest, extra;
    if (!(words >> name)) continue;  // blank or a comment
    const SourceLocation at{path, number, 1};
    if (!(words >> role >> digest) || (words >> extra))
      throw ConfigError(
          at, cat("a token line is `NAME ROLE SHA256-HEX` (three words), got ", in_quotes(line),
                  " (`warpwatch token NAME --role read|write` "
                  "prints one)"));
    ApiToken token;
    token.name = name;
    if (role == "read")
      token.role = TokenRole::read;
    else if (role == "write")
      token.role = TokenRole::write;
    else
      throw ConfigError(at, cat("token ", in_quotes(name), ": role must be 'read' or 'write', got ",
                                in_quotes(role)));
    if (!parse_digest(digest, token.sha256))
      throw ConfigError(at, cat("token ", in_quotes(name),
                                ": the third word must be the token's SHA-256 as 64 hex digits"));
    for (const ApiToken& other : tokens)
      if (other.name == name)
        throw ConfigError(at, cat("token name ", in_quotes(name), " is given twice"));
    tokens.push_back(std::move(token));
  }
  return tokens;
}

void read_http(const PresentKeys& top, const std::string& file, HttpConfig& http) {
  const PresentKey* listen = present(top, "http.listen");
  const PresentKey* alias = present(top, "metrics.listen");
  if (listen && alias && listen->node.as<std::string>() != alias->node.as<std::string>())
    throw ConfigError(alias->value,
                      cat("metrics.listen is another name for http.listen, which is ",
                          in_quotes(listen->node.as<std::string>()), " (at line ",
                          std::to_string(listen->value.line), "): write one of them"));
  const PresentKey* tokens = present(top, "http.tokens_file");
  if (tokens) http.tokens = read_tokens_file(http.tokens_file, tokens->value);
  const PresentKey* listen_at = listen ? listen : alias;
  if (!http.listen.empty() && !is_loopback_listen(http.listen) && !tokens)
    throw ConfigError(listen_at ? listen_at->value : SourceLocation{file, 1, 1},
                      cat("http.listen ", in_quotes(http.listen),
                          " listens beyond loopback without http.tokens_file: anyone who reaches "
                          "it could use the API; write http.tokens_file (`warpwatch token` makes "
                          "its lines), or listen on 127.0.0.1"));
  const PresentKey* cert = present(top, "http.tls.cert_file");
  const PresentKey* key = present(top, "http.tls.key_file");
  if (const PresentKey* tls = present(top, "http.tls"); tls && (!cert || !key))
    throw ConfigError(
        tls->value,
        cat("missing required key ", in_quotes(cert ? "key_file" : "cert_file"), " in 'http.tls'"));
  for (const auto& [at, file_name] :
       {std::pair{cert, &http.tls_cert_file}, std::pair{key, &http.tls_key_file}})
    if (at && !std::ifstream(*file_name).good())
      throw ConfigError(at->value, cat("cannot read ", in_quotes(*file_name)));
  if (const PresentKey* url = present(top, "http.external_url"); url) {
    std::string& u = http.external_url;
    if (!u.empty() && u.rfind("http://", 0) != 0 && u.rfind("https://", 0) != 0)
      throw ConfigError(
          url->value,
          cat("http.external_url must start with http:// or https://, got ", in_quotes(u)));
    while (!u.empty() && u.back() == '/') u.pop_back();
  }
}

}  // namespace warpwatch::config
