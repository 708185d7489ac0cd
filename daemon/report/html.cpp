// A self-contained HTML page (html.hpp): one inline style sheet, inline SVG, no scripts and
// nothing fetched.
#include "warpwatch/report/html.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <system_error>
#include <utility>

#include "append.hpp"
#include "warpwatch/files/files.hpp"

namespace warpwatch::report {
namespace {

constexpr std::string_view kStyle =
    "body{font-family:sans-serif;margin:2em auto;max-width:64em;color:#222;padding:0 1em}"
    "h1{font-size:1.5em}h2{font-size:1.2em;margin-top:1.6em;border-bottom:1px solid #ddd}"
    "table{border-collapse:collapse;margin:.8em 0;font-size:.9em}"
    "th,td{border:1px solid #ccc;padding:.2em .6em;text-align:right}"
    "th{background:#f3f3f3}td:first-child,th:first-child{text-align:left}"
    "figure{margin:1em 0}figcaption{font-size:.85em;color:#555}"
    "pre{background:#f6f6f6;padding:.6em;overflow-x:auto;font-size:.85em}";

}  // namespace

std::string escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  return out;
}

std::string number(double v, int significant) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.*g", std::max(significant, 1), v);
  return buf;
}

Page::Page(std::string title) : title_(std::move(title)) {
  heading(title_, 1);
}

Page& Page::heading(std::string_view text, int level) {
  const std::string h = std::string(1, 'h').append(std::to_string(std::clamp(level, 1, 4)));
  append(body_, "<", h, ">", escape(text), "</", h, ">\n");
  return *this;
}

Page& Page::paragraph(std::string_view text) {
  append(body_, "<p>", escape(text), "</p>\n");
  return *this;
}

Page& Page::table(std::vector<std::string> header, std::vector<std::vector<std::string>> rows) {
  body_ += "<table><thead><tr>";
  for (const std::string& h : header) append(body_, "<th>", escape(h), "</th>");
  body_ += "</tr></thead><tbody>\n";
  for (const auto& row : rows) {
    body_ += "<tr>";
    for (const std::string& cell : row) append(body_, "<td>", escape(cell), "</td>");
    body_ += "</tr>\n";
  }
  body_ += "</tbody></table>\n";
  return *this;
}

Page& Page::figure(std::string svg, std::string_view caption) {
  append(body_, "<figure>", svg);
  if (!caption.empty()) append(body_, "<figcaption>", escape(caption), "</figcaption>");
  body_ += "</figure>\n";
  return *this;
}

Page& Page::preformatted(std::string_view text) {
  append(body_, "<pre>", escape(text), "</pre>\n");
  return *this;
}

std::string Page::html() const {
  std::string page;
  append(page, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>",
         escape(title_), "</title><style>", kStyle, "</style></head><body>\n", body_,
         "</body></html>\n");
  return page;
}

void Page::write(const std::filesystem::path& path) const {
  try {
    files::write_file_atomically(path, html());
  } catch (const std::system_error& e) {
    throw std::runtime_error(
        std::string("report ").append(path.string()).append(": ").append(e.what()));
  }
}

}  // namespace warpwatch::report
