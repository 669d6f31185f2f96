# CPack .deb packages (mcph, mcph-dev): see the next commit.
