// The HTML report (`pipette report --format html -o report.html`): one self-contained page, the
// chart libraries inlined (report/web_assets.h), nothing fetched when it opens. It renders the
// Report's summary, its page sections (report/page.h), warnings and incomplete cells, and
// computes nothing.
#pragma once

#include <ostream>
#include <vector>

#include "pipette/report/document.h"
#include "pipette/report/web_assets.h"

namespace pipette::report {

// The page with these libraries inlined: the registered renderer passes WebLibraries(); the
// golden test a placeholder, so that its file holds Pipette's HTML and not the libraries'.
void RenderHtmlPage(const Report& report, const std::vector<WebLibrary>& libraries,
                    std::ostream& out);

// Text made safe for HTML: & < > " ' escaped.
std::string HtmlEscape(std::string_view text);

// JSON made safe inside a <script> element: every '<' written as \u003c (it only occurs in
// strings, where the escape means the same), so that no "</script>" ends the element early.
std::string ScriptJson(const nlohmann::ordered_json& j);

}  // namespace pipette::report
