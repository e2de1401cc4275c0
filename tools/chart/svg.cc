#include "tools/chart/svg.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace rockpool::chart {
namespace {

// " attrs", or nothing: no stray space inside a tag without attributes.
std::string Spaced(absl::string_view attrs) {
  return attrs.empty() ? std::string() : absl::StrCat(" ", attrs);
}

}  // namespace

std::string EscapeXml(absl::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (const char c : s) {
    switch (c) {
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
      default:
        // A parser rejects the whole document over one such byte (a file
        // name can carry any); the label stays readable without it.
        const bool allowed =
            static_cast<unsigned char>(c) >= 0x20 || c == '\t' || c == '\n' || c == '\r';
        out += allowed ? c : '?';
    }
  }
  return out;
}

std::string Text(double x, double y, absl::string_view text, absl::string_view attrs) {
  return absl::StrFormat("<text x=\"%.1f\" y=\"%.1f\"%s>%s</text>\n", x, y, Spaced(attrs),
                         EscapeXml(text));
}

std::string Line(double x1, double y1, double x2, double y2, absl::string_view attrs) {
  return absl::StrFormat("<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"%s/>\n", x1, y1, x2,
                         y2, Spaced(attrs));
}

std::string Rect(const Box& box, absl::string_view attrs) {
  return absl::StrFormat("<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"%s/>\n", box.x,
                         box.y, box.w, box.h, Spaced(attrs));
}

std::string SvgDocument(double width, double height, absl::string_view body) {
  return absl::StrCat(
      absl::StrFormat(
          "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
          "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%.0f\" "
          "height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" "
          "font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\" font-size=\"12\">\n",
          width, height, width, height),
      "<style>.h{font-size:14px;font-weight:bold}.t{font-size:17px;font-weight:bold}"
      ".v{font-size:11px}.grid{stroke:#ddd;stroke-width:1}.axis{stroke:#444}"
      ".frame{fill:none;stroke:#444}.legend{fill:#fff;fill-opacity:0.85;stroke:#bbb}"
      "</style>\n",
      "<rect width=\"100%\" height=\"100%\" fill=\"#fff\"/>\n", body, "</svg>\n");
}

}  // namespace rockpool::chart
