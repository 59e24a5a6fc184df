#include "io/xml.hpp"

#include <cstring>

#include "ndimg/io/tiff.hpp"

namespace ndimg::io::xml {

namespace {

constexpr size_t kMaxDepth = 256;

[[noreturn]] void fail(const char* what, size_t pos) {
  throw SlideError(std::string("malformed XML metadata: ") + what + " at character " + std::to_string(pos));
}

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }
bool is_name_char(char c) {
  return !is_space(c) && c != '=' && c != '>' && c != '/' && c != '<' && c != '"' && c != '\'' && c != '\0';
}

void append_utf8(std::string& out, unsigned long cp) {
  if (cp < 0x80) {
    out += char(cp);
  } else if (cp < 0x800) {
    out += char(0xC0 | (cp >> 6)), out += char(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += char(0xE0 | (cp >> 12)), out += char(0x80 | ((cp >> 6) & 0x3F)), out += char(0x80 | (cp & 0x3F));
  } else {
    out += char(0xF0 | (cp >> 18)), out += char(0x80 | ((cp >> 12) & 0x3F));
    out += char(0x80 | ((cp >> 6) & 0x3F)), out += char(0x80 | (cp & 0x3F));
  }
}

// Appends s[a, b) to out with entity references decoded.
void append_decoded(std::string& out, const std::string& s, size_t a, size_t b) {
  while (a < b) {
    size_t amp = s.find('&', a);
    if (amp == std::string::npos || amp >= b) amp = b;
    out.append(s, a, amp - a);
    if (amp == b) return;
    size_t semi = s.find(';', amp);
    if (semi == std::string::npos || semi >= b || semi - amp > 12) fail("bad entity reference", amp);
    std::string ent = s.substr(amp + 1, semi - amp - 1);
    if (ent == "lt") out += '<';
    else if (ent == "gt") out += '>';
    else if (ent == "amp") out += '&';
    else if (ent == "quot") out += '"';
    else if (ent == "apos") out += '\'';
    else if (ent.size() > 1 && ent[0] == '#') {
      bool hex = ent[1] == 'x' || ent[1] == 'X';
      const char* digits = ent.c_str() + (hex ? 2 : 1);
      char* end = nullptr;
      unsigned long cp = std::strtoul(digits, &end, hex ? 16 : 10);
      if (*digits == '\0' || *end != '\0' || cp == 0 || cp > 0x10FFFF) fail("bad character reference", amp);
      append_utf8(out, cp);
    } else {
      fail("unknown entity", amp);
    }
    a = semi + 1;
  }
}

}  // namespace

std::string Node::local() const {
  size_t colon = name.find(':');
  return colon == std::string::npos ? name : name.substr(colon + 1);
}

const std::string* Node::attribute(const std::string& key) const {
  for (auto& [k, v] : attributes)
    if (k == key) return &v;
  return nullptr;
}

std::vector<const Node*> Node::elements(const std::string& n) const {
  std::vector<const Node*> out;
  for (auto& c : children)
    if (c->local() == n) out.push_back(c.get());
  return out;
}

const Node* Node::element(const std::string& n) const {
  for (auto& c : children)
    if (c->local() == n) return c.get();
  return nullptr;
}

std::unique_ptr<Node> parse(const std::string& s) {
  std::unique_ptr<Node> root;
  std::vector<Node*> open;  // the elements not yet closed, outermost first
  size_t i = 0;
  const size_t n = s.size();
  auto skip_to = [&](const char* end, size_t from) {
    size_t e = s.find(end, from);
    if (e == std::string::npos) fail("unterminated markup", from);
    return e + std::strlen(end);
  };
  while (i < n) {
    if (s[i] != '<') {  // character data
      size_t lt = s.find('<', i);
      if (lt == std::string::npos) lt = n;
      if (!open.empty()) append_decoded(open.back()->text, s, i, lt);
      else
        for (size_t k = i; k < lt; ++k)
          if (!is_space(s[k]) && s[k] != '\0') fail("text outside the root element", k);
      i = lt;
      continue;
    }
    if (s.compare(i, 4, "<!--") == 0) { i = skip_to("-->", i + 4); continue; }
    if (s.compare(i, 2, "<?") == 0) { i = skip_to("?>", i + 2); continue; }
    if (s.compare(i, 9, "<![CDATA[") == 0) {
      size_t e = s.find("]]>", i + 9);
      if (e == std::string::npos || open.empty()) fail("bad CDATA section", i);
      open.back()->text.append(s, i + 9, e - i - 9);
      i = e + 3;
      continue;
    }
    if (s.compare(i, 2, "<!") == 0) { i = skip_to(">", i + 2); continue; }  // DOCTYPE
    if (s.compare(i, 2, "</") == 0) {
      size_t a = i + 2, b = a;
      while (b < n && is_name_char(s[b])) ++b;
      if (open.empty() || s.compare(a, b - a, open.back()->name) != 0 || b - a != open.back()->name.size())
        fail("mismatched end tag", i);
      while (b < n && is_space(s[b])) ++b;
      if (b >= n || s[b] != '>') fail("bad end tag", i);
      open.pop_back();
      i = b + 1;
      continue;
    }
    // start tag
    size_t p = i + 1, a = p;
    while (p < n && is_name_char(s[p])) ++p;
    if (p == a) fail("bad tag", i);
    auto node = std::make_unique<Node>();
    node->name = s.substr(a, p - a);
    bool empty = false;
    for (;;) {
      while (p < n && is_space(s[p])) ++p;
      if (p >= n) fail("unterminated tag", i);
      if (s[p] == '>') { ++p; break; }
      if (s[p] == '/') {
        if (p + 1 >= n || s[p + 1] != '>') fail("bad tag", p);
        empty = true, p += 2;
        break;
      }
      size_t ka = p;
      while (p < n && is_name_char(s[p])) ++p;
      if (p == ka) fail("bad attribute", p);
      std::string key = s.substr(ka, p - ka);
      while (p < n && is_space(s[p])) ++p;
      if (p >= n || s[p] != '=') fail("attribute without a value", p);
      ++p;
      while (p < n && is_space(s[p])) ++p;
      if (p >= n || (s[p] != '"' && s[p] != '\'')) fail("unquoted attribute value", p);
      size_t close = s.find(s[p], p + 1);
      if (close == std::string::npos) fail("unterminated attribute value", p);
      std::string value;
      append_decoded(value, s, p + 1, close);
      node->attributes.emplace_back(std::move(key), std::move(value));
      p = close + 1;
    }
    Node* raw = node.get();
    if (open.empty()) {
      if (root) fail("more than one root element", i);
      root = std::move(node);
    } else {
      open.back()->children.push_back(std::move(node));
    }
    if (!empty) {
      if (open.size() >= kMaxDepth) fail("elements nested too deeply", i);
      open.push_back(raw);
    }
    i = p;
  }
  if (!root) fail("no root element", 0);
  if (!open.empty()) fail("unclosed element", n);
  return root;
}

std::string base64_decode(const std::string& text) {
  std::string out;
  out.reserve(text.size() / 4 * 3);
  uint32_t acc = 0;
  int bits = 0;
  for (char c : text) {
    int v;
    if (c >= 'A' && c <= 'Z') v = c - 'A';
    else if (c >= 'a' && c <= 'z') v = c - 'a' + 26;
    else if (c >= '0' && c <= '9') v = c - '0' + 52;
    else if (c == '+') v = 62;
    else if (c == '/') v = 63;
    else if (c == '=') break;
    else continue;
    acc = (acc << 6) | uint32_t(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += char((acc >> bits) & 0xFF);
    }
  }
  return out;
}

}  // namespace ndimg::io::xml
