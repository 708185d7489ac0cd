// The room's own: text appended piece by piece (GCC 12 warns falsely, -Wrestrict, about
// chains of `"literal" + std::string`), so that markup is built without temporaries.
#pragma once

#include <string>
#include <string_view>

namespace warpwatch::report {

template <typename... Parts>
void append(std::string& out, const Parts&... parts) {
  (out.append(std::string_view(parts)), ...);
}

}  // namespace warpwatch::report
