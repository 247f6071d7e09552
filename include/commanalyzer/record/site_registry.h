// The program's source and allocation sites as the pass registers them
// (Analyzer::site, Analyzer::array_site): the first registration of an id
// makes the profile's entry (Profile::sites, Profile::array_sites); id 0,
// an unknown site, makes none.
//
//   SiteRegistry sites;
//   sites.site(profile, id, "f.c", 47, "f.c", 45);  // f.c:47, in the loop at f.c:45
//   sites.array_site(profile, id, "f.c", 12, "u");
#ifndef COMMANALYZER_RECORD_SITE_REGISTRY_H_
#define COMMANALYZER_RECORD_SITE_REGISTRY_H_

#include <cstdint>
#include <set>
#include <string>
#include <utility>

namespace commanalyzer {

class SiteRegistry {
 public:
  template <class ProfileT>
  void site(ProfileT& profile, std::uint32_t id, std::string file, std::uint32_t line, std::string loop_file,
            std::uint32_t loop_line) {
    if (id == 0 || !site_ids_.insert(id).second) return;
    profile.sites.push_back({id, line, loop_line, std::move(file), std::move(loop_file)});
  }

  template <class ProfileT>
  void array_site(ProfileT& profile, std::uint32_t id, std::string file, std::uint32_t line, std::string name) {
    if (id == 0 || !array_site_ids_.insert(id).second) return;
    profile.array_sites.push_back({id, line, std::move(file), std::move(name)});
  }

 private:
  std::set<std::uint32_t> site_ids_;
  std::set<std::uint32_t> array_site_ids_;
};

}  // namespace commanalyzer

#endif  // COMMANALYZER_RECORD_SITE_REGISTRY_H_
