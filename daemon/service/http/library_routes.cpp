// The API's library routes (docs/api.md): GET /api/v1/libraries, GET|PUT|DELETE
// /api/v1/libraries/{lib}/patterns/{id}, PUT .../threshold and GET /api/v1/changes, on the
// Pipeline's LibraryEditor (edit/): ETag answered, If-Match passed on, the token's name as who.
#include <nlohmann/json.hpp>

#include "routes_internal.hpp"
#include "warpwatch/service/library_editor.hpp"
#include "warpwatch/service/pipeline.hpp"

namespace warpwatch::service::http {
namespace {

std::shared_ptr<LibraryEditor> editor_of(const Pipeline& p) {
  auto editor = p.library_editor();
  if (!editor) throw Problem(503, "library changes are not available in this process");
  return editor;
}

// The editor's answer: the body with its ETag, 204 without a body, or a problem.
Response answer(const ChangeResult& result) {
  if (result.status >= 400) {
    Response r = problem(result.status, result.problem_detail, result.problem_field);
    if (result.status == 503) r.headers.emplace_back("Retry-After", "1");
    return r;
  }
  Response r =
      result.status == 204 ? text(204, "", "application/json") : json(result.body, result.status);
  if (!result.etag.empty()) r.headers.emplace_back("ETag", result.etag);
  return r;
}

PatternChange change_of(const Request& r) {
  PatternChange change;
  change.library = r.params.at("lib");
  change.pattern = r.params.at("id");
  if (const auto it = r.headers.find("if-match"); it != r.headers.end())
    change.if_match = it->second;
  change.who = r.who.name;
  return change;
}

}  // namespace

void add_library_routes(Router& router, const Pipeline& pipeline) {
  const Pipeline* p = &pipeline;
  constexpr const char* pattern_path = "/api/v1/libraries/{lib}/patterns/{id}";
  router.add("GET", "/api/v1/libraries",
             [p](const Request&) { return json(editor_of(*p)->libraries()); });
  router.add("GET", "/api/v1/changes",
             [p](const Request&) { return json(editor_of(*p)->history()); });
  router.add("GET", pattern_path, [p](const Request& r) {
    return answer(editor_of(*p)->get(r.params.at("lib"), r.params.at("id")));
  });
  router.add("PUT", pattern_path, [p](const Request& r) {
    PatternChange change = change_of(r);
    change.definition = body_of(r);
    return answer(editor_of(*p)->put(change));
  });
  router.add("DELETE", pattern_path,
             [p](const Request& r) { return answer(editor_of(*p)->remove(change_of(r))); });
  router.add("PUT", std::string(pattern_path) + "/threshold", [p](const Request& r) {
    PatternChange change = change_of(r);
    const nlohmann::json body = body_of(r);
    const auto it = body.find("threshold");
    if (it == body.end() || !it->is_number())
      throw Problem(400, "threshold must be a number", "threshold");
    change.threshold = it->get<double>();
    return answer(editor_of(*p)->set_threshold(change));
  });
}

}  // namespace warpwatch::service::http
