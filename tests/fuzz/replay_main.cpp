// The replay driver of the fuzz targets (CMakeLists.txt here): runs LLVMFuzzerTestOneInput
// once on every file under the folders (or files) named on the command line, in a stable
// order, and names each before it runs, so that a crash or a failed oracle says which input
// did it. It fails when it found no input at all: a target without a corpus tests nothing.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);
// Optional, as in libFuzzer.
extern "C" __attribute__((weak)) int LLVMFuzzerInitialize(int* argc, char*** argv);

namespace {

std::vector<std::filesystem::path> inputs_under(const std::filesystem::path& root) {
  std::vector<std::filesystem::path> files;
  if (std::filesystem::is_regular_file(root)) {
    files.push_back(root);
  } else if (std::filesystem::is_directory(root)) {
    for (const auto& entry : std::filesystem::recursive_directory_iterator(root))
      if (entry.is_regular_file() && entry.path().filename() != ".gitkeep")
        files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace

int main(int argc, char** argv) {
  if (LLVMFuzzerInitialize) LLVMFuzzerInitialize(&argc, &argv);
  std::size_t replayed = 0;
  for (int i = 1; i < argc; ++i) {
    for (const auto& path : inputs_under(argv[i])) {
      std::ifstream in(path, std::ios::binary);
      const std::vector<char> bytes((std::istreambuf_iterator<char>(in)),
                                    std::istreambuf_iterator<char>());
      if (!in.eof() && in.fail()) {
        std::cerr << "replay: cannot read " << path << "\n";
        return 2;
      }
      std::cerr << "replay: " << path.string() << " (" << bytes.size() << " bytes)\n";
      // A copy of exactly `size` bytes, so that a read past the end is one (ASan sees it).
      const std::vector<std::uint8_t> data(bytes.begin(), bytes.end());
      LLVMFuzzerTestOneInput(data.empty() ? nullptr : data.data(), data.size());
      ++replayed;
    }
  }
  if (replayed == 0) {
    std::cerr << "replay: no input found under the given paths\n";
    return 1;
  }
  std::cerr << "replay: " << replayed << " input(s), all passed\n";
  return 0;
}
