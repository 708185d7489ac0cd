#include <iostream>

#include "warpwatch/service/daemon.hpp"

int main(int argc, char** argv) {
  return warpwatch::service::run_daemon(argc, argv, std::cout, std::cerr);
}
