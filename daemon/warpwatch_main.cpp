#include <iostream>

#include "warpwatch/daemon/cli.hpp"

int main(int argc, char** argv) { return warpwatch::daemon::run_cli(argc, argv, std::cout, std::cerr); }
