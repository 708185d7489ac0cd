// A self-contained HTML page (styles inline, pictures as inline SVG: nothing fetched, so
// that it opens from a file and can be mailed), built section by section.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace warpwatch::report {

class Page {
 public:
  explicit Page(std::string title);
  Page& heading(std::string_view text, int level = 2);  // level 1-4
  Page& paragraph(std::string_view text);               // text, escaped
  Page& table(std::vector<std::string> header, std::vector<std::vector<std::string>> rows);
  Page& figure(std::string svg, std::string_view caption = {});  // svg as report::svg gives it
  Page& preformatted(std::string_view text);
  std::string html() const;  // the whole document
  // All or nothing: a temporary file beside `path`, renamed over it; std::runtime_error
  // naming the path and the system's reason (nothing is left behind).
  void write(const std::filesystem::path& path) const;

 private:
  std::string title_;
  std::string body_;
};

// Text for HTML and SVG: & < > " ' as entities.
std::string escape(std::string_view text);
// A number for a table or an axis: `significant` digits, %g style ("0.125", "1.2e+06"), and
// "inf", "-inf", "nan".
std::string number(double v, int significant = 4);

}  // namespace warpwatch::report
