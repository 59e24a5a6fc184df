// A small XML reader for slide metadata (Philips' DataObject descriptions, OME-XML): elements, attributes,
// character data (entities and CDATA decoded); comments, processing instructions and DOCTYPE are skipped.
// Namespaces are not resolved: names keep their prefix, and local() drops it. Malformed input throws
// SlideError; nesting is bounded, so hostile input cannot exhaust the stack.
#pragma once
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace ndimg::io::xml {

struct Node {
  std::string name;
  std::vector<std::pair<std::string, std::string>> attributes;
  std::string text;  // character data directly inside this element, concatenated
  std::vector<std::unique_ptr<Node>> children;

  // the name without its namespace prefix
  std::string local() const;
  // the attribute's value, or nullptr
  const std::string* attribute(const std::string& key) const;
  // children whose local name is `name`
  std::vector<const Node*> elements(const std::string& name) const;
  // the first child of that local name, or nullptr
  const Node* element(const std::string& name) const;
};

std::unique_ptr<Node> parse(const std::string& text);

// Base64 text to bytes; characters outside the alphabet (line breaks, blanks) are skipped, '=' ends it.
std::string base64_decode(const std::string& text);

}  // namespace ndimg::io::xml
