// The I/O signatures section (signature-gen).
#include "Writer.h"

#include "Svg.h"
#include "sio/signature/Signature.h"

namespace sio::report::detail {

using namespace sio::trace;

namespace sg = sio::signature;

void Writer::signatures() {
  o_ << "<h2 id=\"signatures\">I/O signatures</h2>\n<p>Per file and group of ranks with the same access "
        "pattern (<code>sio-signature</code>, docs/signatures.md): the trace signature "
        "<code>{op, initial position, dimension, (components), repetitions}</code> and the pattern signature.</p>\n";
  sg::SignatureReport rep;
  try {
    sg::Options so;
    // Bounded: at most maxRanks ranks analysed one by one on huge traces.
    if (t_.header.nranks > 4096)
      so.rank = 0;
    rep = sg::analyze(t_, so);
  } catch (const std::exception &e) {
    o_ << "<p>No signature: " << esc(e.what()) << "</p>\n";
    return;
  }
  if (t_.header.nranks > 4096)
    o_ << "<p class=\"note\">" << t_.header.nranks << " ranks: rank 0 only.</p>\n";
  for (const std::string &n : rep.notes)
    o_ << "<p class=\"note\">" << esc(n) << "</p>\n";
  o_ << "<table id=\"signatures-table\"><tr><th>file</th><th>ranks</th><th>accesses</th><th>trace "
        "signature</th><th>pattern signature</th></tr>";
  size_t shown = 0;
  for (const sg::SignatureGroup &g : rep.groups) {
    if (shown++ >= opt_.maxTableRows)
      break;
    const sg::StreamSignature &s = g.signature;
    std::string file = s.file >= 0 ? fileLabel(t_, s.file) : "?";
    o_ << "<tr><td class=\"mono\">" << esc(file) << "</td><td>" << esc(svg::shorten(g.ranks.str(), 200))
       << "</td><td class=\"n\">" << s.accesses << "</td><td class=\"mono\">"
       << esc(svg::shorten(sg::traceSignatureText(s.trace, g.initialPosition), 600))
       << (g.initialPosition ? "" : " <span class=\"note\">(initial position of the first rank)</span>")
       << "</td><td class=\"mono\">" << esc(sg::patternSignatureText(s.pattern)) << "</td></tr>";
  }
  o_ << "</table>\n";
  if (rep.groups.size() > opt_.maxTableRows)
    o_ << "<p class=\"note\">" << rep.groups.size() - opt_.maxTableRows << " more groups not shown.</p>\n";
}

} // namespace sio::report::detail
