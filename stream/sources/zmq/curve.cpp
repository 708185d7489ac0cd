#include "warpwatch/stream/sources/curve.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <system_error>
#include <utility>

namespace warpwatch::stream {
namespace {

// Key files hold a few keys (an allowed-clients list: one line of 41 bytes per client);
// a larger file is a wrong path, not a list to read into memory.
constexpr std::uintmax_t max_key_file_bytes = 4 << 20;

// ZMQ_ZAP_ENFORCE_DOMAIN: zmq.h declares it with the draft API only, but libzmq 4.3.2 and
// later take it from every build. Set on a server, a handshake that finds no ZAP handler is
// refused instead of accepted.
constexpr int zap_enforce_domain_option = 93;

std::string errno_text(int error) {
  return std::system_category().message(error);
}

std::string in_quotes(const std::string& path) {
  return "'" + path + "'";
}

std::string_view trimmed(std::string_view line) {
  constexpr std::string_view space = " \t\r";
  const std::size_t first = line.find_first_not_of(space);
  if (first == std::string_view::npos) return {};
  return line.substr(first, line.find_last_not_of(space) - first + 1);
}

// The keys of a key file with their line numbers. The bad line is not quoted: it may be a
// secret key written in the wrong place.
std::vector<std::pair<std::size_t, std::string>> key_lines(const std::string& path,
                                                           std::string_view what) {
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (ec || !std::filesystem::is_regular_file(status))
    throw std::runtime_error(std::string(what) + " " + in_quotes(path) + ": cannot read it" +
                             (ec ? ": " + ec.message() : std::string(": not a regular file")));
  if (std::filesystem::file_size(path, ec) > max_key_file_bytes)
    throw std::runtime_error(std::string(what) + " " + in_quotes(path) + " is larger than " +
                             std::to_string(max_key_file_bytes) + " bytes");
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw std::runtime_error(std::string(what) + " " + in_quotes(path) +
                             ": cannot read it: " + errno_text(errno));
  std::vector<std::pair<std::size_t, std::string>> keys;
  std::string line;
  for (std::size_t number = 1; std::getline(in, line); ++number) {
    const std::string_view text = trimmed(line);
    if (text.empty() || text.front() == '#') continue;
    if (!is_z85_key(text))
      throw std::runtime_error(std::string(what) + " " + in_quotes(path) + ", line " +
                               std::to_string(number) + ": not a CURVE key (" +
                               std::to_string(z85_key_chars) +
                               " characters of Z85, as `warpwatch keygen` writes)");
    keys.emplace_back(number, std::string(text));
  }
  if (in.bad())
    throw std::runtime_error(std::string(what) + " " + in_quotes(path) + ": read failed");
  return keys;
}

// Creates `path` with `mode` (never through an existing file: an old file is removed first
// when `overwrite`, so that a secret never sits in a file of looser mode) and writes `text`.
void write_new_file(const std::string& path, const std::string& text, mode_t mode, bool overwrite) {
  if (overwrite && ::unlink(path.c_str()) != 0 && errno != ENOENT)
    throw std::runtime_error("cannot replace " + in_quotes(path) + ": " + errno_text(errno));
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
  if (fd < 0)
    throw std::runtime_error("cannot create " + in_quotes(path) + ": " + errno_text(errno) +
                             (errno == EEXIST ? " (--force replaces it)" : ""));
  // The umask may have taken bits away; it must not have added any (it cannot), and the
  // mode is set exactly so that a file of ours never depends on it.
  bool ok = ::fchmod(fd, mode) == 0;
  std::size_t written = 0;
  while (ok && written < text.size()) {
    const ssize_t n = ::write(fd, text.data() + written, text.size() - written);
    if (n < 0 && errno == EINTR) continue;
    ok = n > 0;
    if (ok) written += static_cast<std::size_t>(n);
  }
  const int error = errno;
  if (::close(fd) != 0 && ok) ok = false;
  if (!ok) throw std::runtime_error("cannot write " + in_quotes(path) + ": " + errno_text(error));
}

void set_key(zmq::socket_t& socket, int option, const std::string& key, const char* name) {
  if (zmq_setsockopt(socket.handle(), option, key.data(), key.size()) != 0)
    throw std::runtime_error(std::string("libzmq refused ") + name + ": " +
                             zmq_strerror(zmq_errno()));
}

}  // namespace

bool curve_available() {
  return zmq_has("curve") != 0;
}

void require_curve() {
  if (!curve_available())
    throw std::runtime_error(
        "CURVE is configured but this libzmq was built without it (zmq_has(\"curve\") is "
        "false): install a libzmq built with libsodium or its own tweetnacl (Debian's is)");
}

bool is_z85_key(std::string_view text) {
  if (text.size() != z85_key_chars) return false;
  const std::string z85(text);
  std::array<std::uint8_t, 32> bytes{};
  return zmq_z85_decode(bytes.data(), z85.c_str()) != nullptr;
}

CurveKeyPair generate_curve_keypair() {
  require_curve();
  std::array<char, z85_key_chars + 1> public_key{}, secret_key{};
  if (zmq_curve_keypair(public_key.data(), secret_key.data()) != 0)
    throw std::runtime_error(std::string("zmq_curve_keypair failed: ") + zmq_strerror(zmq_errno()));
  return {public_key.data(), secret_key.data()};
}

CurveKeyPair key_pair_of(std::string_view secret_key) {
  require_curve();
  if (!is_z85_key(secret_key)) throw std::invalid_argument("not a Z85 CURVE key");
  const std::string secret(secret_key);
  std::array<char, z85_key_chars + 1> public_key{};
  if (zmq_curve_public(public_key.data(), secret.c_str()) != 0)
    throw std::runtime_error(std::string("zmq_curve_public failed: ") + zmq_strerror(zmq_errno()));
  return {public_key.data(), secret};
}

std::string read_key_file(const std::string& path, bool secret) {
  const char* what = secret ? "secret key file" : "public key file";
  const auto keys = key_lines(path, what);
  if (keys.empty())
    throw std::runtime_error(std::string(what) + " " + in_quotes(path) + " holds no key");
  if (keys.size() > 1)
    throw std::runtime_error(std::string(what) + " " + in_quotes(path) + ", line " +
                             std::to_string(keys[1].first) + ": a second key (it holds one)");
  if (secret) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0)
      throw std::runtime_error(std::string(what) + " " + in_quotes(path) + ": " +
                               errno_text(errno));
    if ((st.st_mode & 077) != 0) {
      char mode[8];
      std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(st.st_mode & 07777));
      throw std::runtime_error(std::string(what) + " " + in_quotes(path) +
                               " may be read or written by group or others (mode " + mode +
                               "): `chmod 600` it, owned by the user that reads it");
    }
  }
  return keys.front().second;
}

std::vector<std::string> read_key_list_file(const std::string& path) {
  std::vector<std::string> keys;
  for (auto& [line, key] : key_lines(path, "key list file"))
    if (std::find(keys.begin(), keys.end(), key) == keys.end()) keys.push_back(std::move(key));
  return keys;
}

void write_key_files(const CurveKeyPair& keys, const std::string& prefix, bool overwrite) {
  const std::string secret_path = prefix + ".key", public_path = prefix + ".pub";
  if (!overwrite)
    for (const std::string& path : {secret_path, public_path}) {
      std::error_code ec;
      if (std::filesystem::symlink_status(path, ec).type() != std::filesystem::file_type::not_found)
        throw std::runtime_error(in_quotes(path) + " exists (--force replaces it)");
    }
  write_new_file(
      secret_path,
      "# warpwatch CURVE secret key: keep it private (mode 0600)\n" + keys.secret_key + "\n", 0600,
      overwrite);
  write_new_file(public_path, "# warpwatch CURVE public key\n" + keys.public_key + "\n", 0644,
                 overwrite);
}

void apply_curve(zmq::socket_t& socket, const CurveSocketOptions& curve) {
  require_curve();
  const bool server = curve.server_public_key.empty();
  int one = 1;
  if (server) {
    if (zmq_setsockopt(socket.handle(), ZMQ_CURVE_SERVER, &one, sizeof one) != 0)
      throw std::runtime_error(std::string("libzmq refused ZMQ_CURVE_SERVER: ") +
                               zmq_strerror(zmq_errno()));
    set_key(socket, ZMQ_CURVE_SECRETKEY, curve.keys.secret_key, "the CURVE secret key");
    set_key(socket, ZMQ_ZAP_DOMAIN, curve.zap_domain, "ZMQ_ZAP_DOMAIN");
    if (zmq_setsockopt(socket.handle(), zap_enforce_domain_option, &one, sizeof one) != 0)
      throw std::runtime_error(
          std::string("libzmq refused ZMQ_ZAP_ENFORCE_DOMAIN (libzmq 4.3.2 or later has it): ") +
          zmq_strerror(zmq_errno()));
  } else {
    set_key(socket, ZMQ_CURVE_SERVERKEY, curve.server_public_key, "the server's public key");
    set_key(socket, ZMQ_CURVE_PUBLICKEY, curve.keys.public_key, "the CURVE public key");
    set_key(socket, ZMQ_CURVE_SECRETKEY, curve.keys.secret_key, "the CURVE secret key");
  }
}

}  // namespace warpwatch::stream
