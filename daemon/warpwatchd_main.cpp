#include <iostream>

#include "warpwatch/daemon/daemon.hpp"

int main(int argc, char** argv) {
  return warpwatch::daemon::run_daemon(argc, argv, std::cout, std::cerr);
}
