#include "client-lib/control/shared_client.h"

namespace protond::client {

std::shared_ptr<Client> SharedClient::Get(uint64_t registrations) {
  absl::MutexLock lock(&mutex_);
  if (closed_) return std::make_shared<Client>(socket_path_, deadline_);
  if (client_ == nullptr || made_at_registrations_ != registrations) {
    // Making a client only sets up its channel: it connects at the first call, outside the lock.
    client_ = std::make_shared<Client>(socket_path_, deadline_);
    made_at_registrations_ = registrations;
  }
  return client_;
}

void SharedClient::Forget(const std::shared_ptr<Client>& client) {
  absl::MutexLock lock(&mutex_);
  if (client_ == client) client_.reset();
}

void SharedClient::Close() {
  std::shared_ptr<Client> kept;
  {
    absl::MutexLock lock(&mutex_);
    closed_ = true;
    kept = std::move(client_);
  }
  // Destroyed outside the lock: a channel's teardown may wait for its threads.
}

}  // namespace protond::client
