// CURVE keys and their files (stream/curve.hpp): the pair `warpwatch keygen` writes, the
// file format (comments, one key, lists), the modes, and each refusal naming the file and
// line.
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <string>

#include "curve_support.hpp"
#include "test_support.hpp"
#include "warpwatch/stream/sources/curve.hpp"

namespace {

using namespace warpwatch;
using warpwatch::testing::file_mode;
using warpwatch::testing::TempDir;

// The message of the std::runtime_error `f` throws ("" when it throws none).
template <class F>
std::string error_of(F f) {
  try {
    f();
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "";
}

TEST(CurveKeys, LibzmqHasCurveAndPairsAreConsistent) {
  ASSERT_TRUE(stream::curve_available());
  const stream::CurveKeyPair a = stream::generate_curve_keypair();
  const stream::CurveKeyPair b = stream::generate_curve_keypair();
  EXPECT_TRUE(stream::is_z85_key(a.public_key));
  EXPECT_TRUE(stream::is_z85_key(a.secret_key));
  EXPECT_NE(a.public_key, b.public_key);
  EXPECT_EQ(stream::key_pair_of(a.secret_key), a);  // the public key follows from the secret
  EXPECT_FALSE(stream::is_z85_key(a.public_key.substr(1)));
  EXPECT_FALSE(stream::is_z85_key(std::string(40, '"')));  // not in Z85's alphabet
  EXPECT_THROW(stream::key_pair_of("short"), std::invalid_argument);
}

TEST(CurveKeys, WrittenFilesReadBackWithTheirModes) {
  const TempDir dir;
  const auto pair = stream::generate_curve_keypair();
  stream::write_key_files(pair, dir.file("daemon"), false);
  EXPECT_EQ(file_mode(dir.file("daemon.key")), 0600u);
  EXPECT_EQ(file_mode(dir.file("daemon.pub")), 0644u);
  EXPECT_EQ(stream::read_key_file(dir.file("daemon.key"), true), pair.secret_key);
  EXPECT_EQ(stream::read_key_file(dir.file("daemon.pub"), false), pair.public_key);

  // An existing file is kept, and so is its partner: nothing is written.
  const auto other = stream::generate_curve_keypair();
  EXPECT_NE(error_of([&] {
              stream::write_key_files(other, dir.file("daemon"), false);
            }).find("exists (--force replaces it)"),
            std::string::npos);
  EXPECT_EQ(stream::read_key_file(dir.file("daemon.key"), true), pair.secret_key);
  ::chmod(dir.file("daemon.key").c_str(), 0644);  // replaced: 0600 again, not the old mode
  stream::write_key_files(other, dir.file("daemon"), true);
  EXPECT_EQ(file_mode(dir.file("daemon.key")), 0600u);
  EXPECT_EQ(stream::read_key_file(dir.file("daemon.key"), true), other.secret_key);
  EXPECT_EQ(stream::read_key_file(dir.file("daemon.pub"), false), other.public_key);
}

TEST(CurveKeys, KeyFilesRefuseWhatIsNotOneKey) {
  const TempDir dir;
  const auto pair = stream::generate_curve_keypair();
  const auto a = stream::generate_curve_keypair().public_key;
  EXPECT_EQ(
      stream::read_key_file(dir.write("ok.pub", "# comment\n\n  " + a + " \r\n# end\n"), false), a);
  EXPECT_NE(error_of([&] {
              stream::read_key_file(dir.write("none.pub", "# nothing\n"), false);
            }).find("holds no key"),
            std::string::npos);
  const std::string two = dir.write("two.pub", a + "\n#\n" + pair.public_key + "\n");
  EXPECT_NE(
      error_of([&] { stream::read_key_file(two, false); }).find(two + "', line 3: a second key"),
      std::string::npos);
  const std::string bad = dir.write("bad.pub", "# key\n" + a.substr(0, 39) + "\n");
  const std::string message = error_of([&] { stream::read_key_file(bad, false); });
  EXPECT_NE(message.find(bad + "', line 2: not a CURVE key"), std::string::npos) << message;
  EXPECT_NE(error_of([&] {
              stream::read_key_file(dir.file("missing.pub"), false);
            }).find("cannot read it"),
            std::string::npos);

  // A secret key open to group or others is refused, with its mode.
  const std::string secret = dir.write("open.key", pair.secret_key + "\n");
  ::chmod(secret.c_str(), 0640);
  EXPECT_NE(error_of([&] { stream::read_key_file(secret, true); }).find("(mode 0640)"),
            std::string::npos);
  ::chmod(secret.c_str(), 0400);
  EXPECT_EQ(stream::read_key_file(secret, true), pair.secret_key);
}

TEST(CurveKeys, KeyListsKeepFileOrderWithoutDuplicates) {
  const TempDir dir;
  const auto a = stream::generate_curve_keypair().public_key;
  const auto b = stream::generate_curve_keypair().public_key;
  EXPECT_EQ(stream::read_key_list_file(dir.write("l", "# clients\n" + b + "\n\n" + a + "\n" + b)),
            (std::vector<std::string>{b, a}));
  EXPECT_TRUE(stream::read_key_list_file(dir.write("empty", "# none yet\n")).empty());
  const std::string bad = dir.write("bad", a + "\n" + a + "x\n");
  EXPECT_NE(
      error_of([&] { stream::read_key_list_file(bad); }).find(bad + "', line 2: not a CURVE key"),
      std::string::npos);
}

}  // namespace
