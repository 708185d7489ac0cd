#include <iostream>

#include "warpwatch/cli/cli.hpp"

int main(int argc, char** argv) {
  return warpwatch::cli::run_cli(argc, argv, std::cout, std::cerr);
}
