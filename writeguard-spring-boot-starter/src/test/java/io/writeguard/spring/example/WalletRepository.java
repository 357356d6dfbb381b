package io.writeguard.spring.example;

import org.springframework.data.mongodb.repository.MongoRepository;

/** Spring Data's own repository of wallets: its {@code save} checks the same {@code @Version}. */
public interface WalletRepository extends MongoRepository<Wallet, String> {}
